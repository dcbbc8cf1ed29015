package lsp

import (
	"context"

	"go.lsp.dev/protocol"
)

// DidChangeWatchedFiles analyses again the open documents that imported a
// module file that changed, was created or was deleted on disk
// (imports.go). The client decides which files it watches (the VS Code
// extension: **/*.py).
func (s *Server) DidChangeWatchedFiles(_ context.Context, p *protocol.DidChangeWatchedFilesParams) error {
	var paths []string
	for _, c := range p.Changes {
		if c.URI.IsFile() {
			paths = append(paths, c.URI.FsPath())
		}
	}
	s.modulesChanged(paths...)
	return nil
}
