package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// ExecuteCommand runs the tilels commands. Each takes the source document
// URI and, optionally, a kernel name (all kernels when absent or empty),
// and answers from the analysis of the document's newest version:
//
//	tilels.lower        -> {"cuda": "...", "tirx": "..."}
//	tilels.writeCUDA    -> {"uri": "file:///.../k.cu", "applied": true}
//	tilels.showLowered  -> {"uri": "tilels-lowered:...", "shown": true}
//	                       or, without showDocument/textDocumentContent
//	                       support, {"uri": ..., "cuda": ..., "tirx": ...}
func (s *Server) ExecuteCommand(ctx context.Context, p *protocol.ExecuteCommandParams) (protocol.LSPAny, error) {
	switch p.Command {
	case cmdLower, cmdWriteCUDA, cmdShowLowered:
	default:
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown command %q", p.Command)
	}
	var args []string
	for i, a := range p.Arguments {
		var str string
		if err := json.Unmarshal(a, &str); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: argument %d must be a string", p.Command, i+1)
		}
		args = append(args, str)
	}
	if len(args) < 1 || len(args) > 2 {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s takes the document URI and an optional kernel name", p.Command)
	}
	u, err := uri.Parse(args[0])
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: bad URI %q: %v", p.Command, args[0], err)
	}
	kernel := ""
	if len(args) == 2 {
		kernel = args[1]
	}
	d := s.doc(u)
	if d == nil {
		return nil, jsonrpc2.Errorf(requestFailed, "%s is not open", u)
	}
	snap, err := d.await(ctx)
	if err != nil {
		return nil, err
	}
	if kernel != "" && len(snap.low.Select(kernel)) == 0 {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s has no kernel named %q", d.name(), kernel)
	}
	switch p.Command {
	case cmdLower:
		cuda, tirx, err := snap.lowered(kernel)
		if err != nil {
			return nil, jsonrpc2.Errorf(requestFailed, "%v", err)
		}
		return marshalAny(map[string]string{"cuda": cuda, "tirx": tirx})
	case cmdWriteCUDA:
		return s.writeCUDA(ctx, d, snap, kernel)
	default:
		return s.showLowered(ctx, d, snap, kernel)
	}
}

// writeCUDA writes the lowered CUDA beside the source: as a workspace edit
// the editor applies (and can undo) when the client supports creating
// files, else directly on disk.
func (s *Server) writeCUDA(ctx context.Context, d *document, snap *snapshot, kernel string) (protocol.LSPAny, error) {
	target, edit, err := cudaEdit(d, snap, kernel)
	if err != nil {
		return nil, jsonrpc2.Errorf(requestFailed, "%v", err)
	}
	caps := s.caps.Load()
	if caps.applyEdit && caps.createFiles {
		label := "Write lowered CUDA to " + filepath.Base(target.FsPath())
		res, err := s.client.ApplyEdit(ctx, &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: *edit})
		if err != nil {
			return nil, jsonrpc2.Errorf(requestFailed, "workspace/applyEdit: %v", err)
		}
		return marshalAny(map[string]any{"uri": string(target), "applied": res.Applied})
	}
	cuda, _, err := snap.lowered(kernel)
	if err != nil {
		return nil, jsonrpc2.Errorf(requestFailed, "%v", err)
	}
	if err := writeAtomic(target.FsPath(), []byte(cuda)); err != nil {
		return nil, jsonrpc2.Errorf(requestFailed, "%v", err)
	}
	return marshalAny(map[string]any{"uri": string(target), "applied": true})
}

// showLowered opens the tilels-lowered view of the document, or returns
// the lowered text for clients that cannot show it.
func (s *Server) showLowered(ctx context.Context, d *document, snap *snapshot, kernel string) (protocol.LSPAny, error) {
	u := loweredURI(d.uri, "cu", kernel)
	caps := s.caps.Load()
	if caps.showDocument && caps.textDocumentContent {
		res, err := s.client.ShowDocument(ctx, &protocol.ShowDocumentParams{URI: u})
		if err != nil {
			return nil, jsonrpc2.Errorf(requestFailed, "window/showDocument: %v", err)
		}
		return marshalAny(map[string]any{"uri": string(u), "shown": res.Success})
	}
	cuda, tirx, err := snap.lowered(kernel)
	if err != nil {
		return nil, jsonrpc2.Errorf(requestFailed, "%v", err)
	}
	return marshalAny(map[string]any{"uri": string(u), "cuda": cuda, "tirx": tirx})
}

// cudaEdit is the workspace edit that creates <name>.cu beside the source
// with the lowered CUDA: CreateFile (overwriting) and one insertion.
func cudaEdit(d *document, snap *snapshot, kernel string) (uri.URI, *protocol.WorkspaceEdit, error) {
	if d.path == "" {
		return "", nil, fmt.Errorf("%s is not a file", d.uri)
	}
	cuda, _, err := snap.lowered(kernel)
	if err != nil {
		return "", nil, err
	}
	target := uri.File(filepath.Join(filepath.Dir(d.path), cuName(filepath.Base(d.path), kernel)))
	yes := true
	edit := &protocol.WorkspaceEdit{DocumentChanges: []protocol.DocumentChange{
		&protocol.CreateFile{Kind: "create", URI: target, Options: &protocol.CreateFileOptions{Overwrite: &yes}},
		&protocol.TextDocumentEdit{
			TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: target}},
			Edits:        []protocol.TextDocumentEditElement{&protocol.TextEdit{NewText: cuda}},
		},
	}}
	return target, edit, nil
}

func marshalAny(v any) (protocol.LSPAny, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return protocol.LSPAny(b), nil
}

func mustJSON(v any) protocol.LSPAny {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only called with strings
	}
	return protocol.LSPAny(b)
}

// writeAtomic writes data to a temporary file beside path and renames it
// into place, so readers never see a partial file.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	name := tmp.Name()
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	for _, e := range []error{werr, cerr, os.Chmod(name, 0o644)} {
		if e != nil {
			os.Remove(name)
			return fmt.Errorf("write %s: %w", path, e)
		}
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
