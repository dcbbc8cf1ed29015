package lsp

import (
	"context"

	"go.lsp.dev/protocol"
)

// DidChangeWorkspaceFolders updates the workspace folders: the places the
// server reads sources from and writes CUDA files to (workspace.go).
func (s *Server) DidChangeWorkspaceFolders(_ context.Context, p *protocol.DidChangeWorkspaceFoldersParams) error {
	removed := map[string]bool{}
	for _, f := range p.Event.Removed {
		if r, ok := resolvePath(folderPath(f.URI)); ok {
			removed[r] = true
		}
	}
	var paths []string
	for _, f := range s.workspaceFolders() {
		if !removed[f] {
			paths = append(paths, f)
		}
	}
	for _, f := range p.Event.Added {
		paths = append(paths, folderPath(f.URI))
	}
	s.setFolders(paths)
	s.log.Info("workspace folders changed", "folders", s.workspaceFolders())
	s.reconfigureAll() // the import roots changed (imports.go)
	return nil
}
