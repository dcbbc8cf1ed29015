package lsp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/lower"
)

// cmdPicture is the command an editor asks for the pictures of the tile
// call at a position (package picture, through lower.Pictures).
const cmdPicture = "tilels.picture"

// picture runs tilels.picture: the document URI, a position {"line",
// "character"} in a tile call, and optionally which pictures
// ("partition", "bank" or "both", the default). It answers from the
// analysis of the newest version, for the def's selected case:
//
//	{"title": "copy · line 12 · Tx.warp.copy → reg vec 4",
//	 "kernel": "copy", "line": 12, "svg": "<svg ...>", "text": "...",
//	 "range": {...}}
//
// text is the Unicode form of the same pictures; range is the call. It
// answers null for a position outside every tile call.
func (s *Server) picture(ctx context.Context, p *protocol.ExecuteCommandParams) (protocol.LSPAny, error) {
	if len(p.Arguments) < 2 || len(p.Arguments) > 3 {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s takes the document URI, a position and an optional picture (partition, bank or both)", p.Command)
	}
	var first string
	if err := json.Unmarshal(p.Arguments[0], &first); err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: argument 1 must be a string", p.Command)
	}
	var pos protocol.Position
	if err := json.Unmarshal(p.Arguments[1], &pos); err != nil || !strings.Contains(string(p.Arguments[1]), `"line"`) {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: argument 2 must be a position {\"line\", \"character\"}", p.Command)
	}
	which := ""
	if len(p.Arguments) == 3 {
		if err := json.Unmarshal(p.Arguments[2], &which); err != nil || !lower.ValidPicture(which) {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: argument 3 must be partition, bank or both", p.Command)
		}
	}
	d, err := s.commandDoc(p.Command, first)
	if err != nil {
		return nil, err
	}
	snap, err := d.await(ctx)
	if err != nil {
		return nil, err
	}
	off := source.Pos(snap.text.m.Offset(pos))
	def := defAt(snap.defs(), off)
	if def == nil || def.partial {
		return protocol.LSPAny("null"), nil
	}
	at, ds := findCall(def, d.selected().pick(def), off, false)
	if ds == nil {
		return protocol.LSPAny("null"), nil
	}
	kv := def.recs[at]
	span := kv.ToFile(ds[0].Call.Span)
	line := snap.text.m.Position(int(span.Start)).Line + 1
	pics := lower.Pictures(kv.Kernel, ds[0], int(line))
	title := ""
	if pics.Partition != nil {
		title = pics.Partition.Title
	} else if pics.Bank != nil {
		title = pics.Bank.Title
	}
	return marshalAny(map[string]any{
		"title":  title,
		"kernel": def.key.String(),
		"line":   line,
		"svg":    lower.RenderPictures(pics, "svg", which),
		"text":   lower.RenderPictures(pics, "text", which),
		"range":  snap.text.m.Range(span),
	})
}

func validHoverPicture(s string) bool { return s == "" || s == "text" || s == "image" || s == "off" }

// hoverPicture is the pictures section of a hover on a tile call's
// callee (Tx.warp.copy), as the hoverPicture setting asks: a fenced
// Unicode grid, an SVG image (a data: URI), or nothing.
// A panic while drawing is logged (an error: scenario tests fail on it)
// and costs the hover its pictures only.
func (s *Server) hoverPicture(snap *snapshot, def *kdef, sel selection, off source.Pos) (md string) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic while drawing a hover picture", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			md = ""
		}
	}()
	mode := s.settings().HoverPicture
	if mode == "off" || def.partial {
		return ""
	}
	at, ds := findCall(def, sel.pick(def), off, true)
	if ds == nil {
		return ""
	}
	kv := def.recs[at]
	line := snap.text.m.Position(int(kv.ToFile(ds[0].Call.Span).Start)).Line + 1
	pic, isSVG := snap.prints.HoverPicture(kv.Kernel, ds[0], int(line), mode == "image" && !s.plainHover()) // no image in plain text
	if pic == "" {
		return ""
	}
	if isSVG {
		return "\n![partition and bank map](data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(pic)) + ")\n"
	}
	return "\n**Picture**\n```text\n" + pic + "```\n"
}

// withPicture places a call hover's pictures before its lowered code
// excerpts (the TIRx and CUDA blocks, which can be long), else at the end.
func withPicture(md, pic string) string {
	if pic == "" {
		return md
	}
	for _, mark := range []string{"\n**Host init**", "\n**TIRx**", "\n**CUDA**", "\n_no CUDA:"} {
		if i := strings.Index(md, mark); i >= 0 {
			return md[:i] + pic + md[i:]
		}
	}
	return md + pic
}
