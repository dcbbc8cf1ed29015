package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/tilels/tilels/dsl/source"
)

// ExecuteCommand runs the tilels commands. Each takes the source document
// URI first and answers from the analysis of the document's newest
// version. The lowering commands take, optionally, a kernel name (all
// kernels when absent or empty) and print each kernel def in its selected
// case:
//
//	tilels.lower        -> {"cuda": "...", "tirx": "..."[, "cases": [...]]}
//	tilels.writeCUDA    -> {"uri": "file:///.../k.cu", "applied": true}
//	tilels.showLowered  -> {"uri": "tilels-lowered:...", "shown": true}
//	                       (a third argument "ptx", "sass" or "tirx"
//	                       shows that instead of the CUDA: machine.go)
//	                       or, without showDocument/textDocumentContent
//	                       support, {"uri": ..., "cuda": ..., "tirx": ...}
//
// The case commands take a kernel def (its name, "name#2" for the second
// def of that name, or a position {"line", "character"} inside it) and,
// for tilels.selectCase, a case index (1-based; absent: the next case,
// cycling):
//
//	tilels.selectCase   -> {"kernel": "k", "case": 3, "count": 12, "label": "...", "id": "..."}
//	tilels.pickCase     -> {"kernel": "k", "selected": 3, "cases": [{"case": 1, "label": ..., "id": ..., "source": ...}, ...]}
func (s *Server) ExecuteCommand(ctx context.Context, p *protocol.ExecuteCommandParams) (protocol.LSPAny, error) {
	switch p.Command {
	case cmdLower, cmdWriteCUDA, cmdShowLowered:
	case cmdSelectCase, cmdPickCase:
		return s.caseCommand(ctx, p)
	case cmdKernelSummary:
		return s.kernelSummary(ctx, p)
	case cmdReference:
		return s.reference(ctx, p)
	case cmdPicture:
		return s.picture(ctx, p)
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
	kind := "cu"
	if p.Command == cmdShowLowered && len(args) == 3 {
		if kind = args[2]; kind != "cu" && kind != "tirx" && kind != "ptx" && kind != "sass" {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: argument 3 must be cu, tirx, ptx or sass", p.Command)
		}
		args = args[:2]
	}
	if len(args) < 1 || len(args) > 2 {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s takes the document URI and an optional kernel name", p.Command)
	}
	d, err := s.commandDoc(p.Command, args[0])
	if err != nil {
		return nil, err
	}
	kernel := ""
	if len(args) == 2 {
		kernel = args[1]
	}
	snap, err := d.await(ctx)
	if err != nil {
		return nil, err
	}
	if kernel != "" && !slices.ContainsFunc(snap.defs(), func(k *kdef) bool { return k.name() == kernel }) {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s has no kernel named %q", d.name(), kernel)
	}
	sel := d.selected()
	switch p.Command {
	case cmdLower:
		cuda, tirx, err := snap.lowered(sel, kernel)
		if err != nil {
			return nil, jsonrpc2.Errorf(requestFailed, "%v", err)
		}
		out := map[string]any{"cuda": cuda, "tirx": tirx}
		if _, cased := snap.kernels(sel, kernel); len(cased) > 0 {
			var cs []map[string]any
			for _, k := range cased {
				cs = append(cs, map[string]any{"kernel": k.Name, "case": k.CaseIndex, "count": k.CaseCount, "label": k.CaseLabel})
			}
			out["cases"] = cs
		}
		return marshalAny(out)
	case cmdWriteCUDA:
		return s.writeCUDA(ctx, d, snap, kernel)
	default:
		return s.showLowered(ctx, d, snap, kernel, kind)
	}
}

// commandDoc returns the open document a command's first argument names.
func (s *Server) commandDoc(cmd, arg string) (*document, error) {
	u, err := uri.Parse(arg)
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: bad URI %q: %v", cmd, arg, err)
	}
	d := s.doc(u)
	if d == nil {
		return nil, jsonrpc2.Errorf(requestFailed, "%s is not open", u)
	}
	return d, nil
}

// caseCommand runs tilels.selectCase and tilels.pickCase.
func (s *Server) caseCommand(ctx context.Context, p *protocol.ExecuteCommandParams) (protocol.LSPAny, error) {
	maxArgs := 2
	if p.Command == cmdSelectCase {
		maxArgs = 3
	}
	if len(p.Arguments) < 2 || len(p.Arguments) > maxArgs {
		if maxArgs == 3 {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s takes the document URI, a kernel (name or position) and an optional case index", p.Command)
		}
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s takes the document URI and a kernel (name or position)", p.Command)
	}
	var first string
	if err := json.Unmarshal(p.Arguments[0], &first); err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: argument 1 must be a string", p.Command)
	}
	d, err := s.commandDoc(p.Command, first)
	if err != nil {
		return nil, err
	}
	index := 0 // the next case
	if len(p.Arguments) == 3 && string(p.Arguments[2]) != "null" {
		if err := json.Unmarshal(p.Arguments[2], &index); err != nil || index < 1 {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: argument 3 must be a case index (1, 2, ...)", p.Command)
		}
	}
	snap, err := d.await(ctx)
	if err != nil {
		return nil, err
	}
	def, err := findDef(d, snap, json.RawMessage(p.Arguments[1]))
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %v", p.Command, err)
	}
	if def.partial {
		return nil, jsonrpc2.Errorf(requestFailed, "%s: %v", p.Command, snap.noKernel(def.name()))
	}
	cur := d.selected().pick(def) + 1
	if p.Command == cmdPickCase {
		var cs []map[string]any
		for _, r := range def.recs {
			k := r.Kernel
			cs = append(cs, map[string]any{"case": k.CaseIndex, "label": k.CaseLabel, "id": k.CaseID, "source": k.CaseSource})
		}
		return marshalAny(map[string]any{"kernel": def.key.String(), "selected": cur, "cases": cs})
	}
	if index == 0 {
		index = cur%len(def.recs) + 1
	}
	if index > len(def.recs) {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: kernel %s has %s", p.Command, def.key, plural(int64(len(def.recs)), "case"))
	}
	if index != cur {
		d.choose(def, index)
		// Everything that shows the selected case: hints, lenses, views.
		s.refreshViews(d.uri)
		s.refreshHints()
	}
	k := def.recs[index-1].Kernel
	return marshalAny(map[string]any{"kernel": def.key.String(), "case": index, "count": len(def.recs), "label": k.CaseLabel, "id": k.CaseID})
}

// findDef returns the kernel def a case command names: a kernel name
// ("name", or "name#n" for the n-th def of that name) or a position in
// the newest text.
func findDef(d *document, snap *snapshot, arg json.RawMessage) (*kdef, error) {
	var name string
	if err := json.Unmarshal(arg, &name); err == nil {
		nth := 1
		if base, n, ok := strings.Cut(name, "#"); ok {
			v, err := strconv.Atoi(n)
			if err != nil || v < 1 {
				return nil, fmt.Errorf("bad kernel %q (want NAME or NAME#N)", name)
			}
			name, nth = base, v
		}
		for _, k := range snap.defs() {
			if k.key == (defKey{name, nth}) {
				return k, nil
			}
		}
		return nil, fmt.Errorf("%s has no kernel %s", d.name(), defKey{name, nth})
	}
	var pos protocol.Position
	if err := json.Unmarshal(arg, &pos); err != nil || !bytes.Contains(arg, []byte(`"line"`)) {
		return nil, fmt.Errorf("argument 2 must be a kernel name or a position {\"line\", \"character\"}")
	}
	off := source.Pos(snap.text.m.Offset(pos))
	if k := defAt(snap.defs(), off); k != nil {
		return k, nil
	}
	return nil, fmt.Errorf("no kernel def at %d:%d", pos.Line+1, pos.Character+1)
}

// writeCUDA writes the lowered CUDA beside the source: as a workspace edit
// the editor applies (and can undo) when the client supports creating
// files, else directly on disk. Both only inside a workspace folder
// (workspace.go); a refusal is an error response saying why.
func (s *Server) writeCUDA(ctx context.Context, d *document, snap *snapshot, kernel string) (protocol.LSPAny, error) {
	target, edit, err := s.cudaEdit(d, snap, kernel)
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
	cuda, _, err := snap.lowered(d.selected(), kernel)
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
func (s *Server) showLowered(ctx context.Context, d *document, snap *snapshot, kernel, kind string) (protocol.LSPAny, error) {
	u := loweredURI(d.uri, kind, kernel)
	caps := s.caps.Load()
	if caps.showDocument && caps.textDocumentContent {
		res, err := s.client.ShowDocument(ctx, &protocol.ShowDocumentParams{URI: u})
		if err != nil {
			return nil, jsonrpc2.Errorf(requestFailed, "window/showDocument: %v", err)
		}
		return marshalAny(map[string]any{"uri": string(u), "shown": res.Success})
	}
	if kind == "ptx" || kind == "sass" {
		return marshalAny(map[string]any{"uri": string(u), kind: s.machineText(d, snap, loweredRef{source: d.uri, kind: kind, kernel: kernel})})
	}
	cuda, tirx, err := snap.lowered(d.selected(), kernel)
	if err != nil {
		return nil, jsonrpc2.Errorf(requestFailed, "%v", err)
	}
	return marshalAny(map[string]any{"uri": string(u), "cuda": cuda, "tirx": tirx})
}

// cudaEdit is the workspace edit that creates <name>.cu beside the source
// with the lowered CUDA: CreateFile (overwriting) and one insertion. The
// target is checked by cuTarget (inside a workspace folder).
func (s *Server) cudaEdit(d *document, snap *snapshot, kernel string) (uri.URI, *protocol.WorkspaceEdit, error) {
	path, err := s.cuTarget(d, kernel)
	if err != nil {
		return "", nil, err
	}
	cuda, _, err := snap.lowered(d.selected(), kernel)
	if err != nil {
		return "", nil, err
	}
	target := uri.File(path)
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
