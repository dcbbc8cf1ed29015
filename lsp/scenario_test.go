package lsp

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/internal/txtar"
	"github.com/tilels/tilels/lower"
)

var update = flag.Bool("update", false, "rewrite the golden sections of lsp/testdata/*.txtar")

// TestScenarios runs every lsp/testdata/*.txtar against the real server
// in-process. An archive holds one Python file (the document) whose
// comments carry markers, an optional settings.json (initializationOptions
// and the workspace/configuration answer), and golden sections out/NAME:
//
//	#@diag("needle", "code", "message part"[, related])  a diagnostic starts at needle on this line
//	#@hover("needle", "golden")     hover at needle; "" golden: no hover
//	#@hint("label")                 an inlay hint on this line
//	#@def("needle", "target")       definition at needle is the first "target" of the file
//	#@codeaction("needle", "title", "golden")
//	#@command("name", "kernel", "golden"[, "json"])  run the command on the
//	                                the document (json: one more argument)
//	#@hints("golden")               every inlay hint of the document, now
//	#@lenses("golden")              every code lens of the document, now
//	#@outputranges("cu"|"tirx", "kernel", "golden")  tilels/outputRanges of the view
//	#@complete("needle", "golden")  completion just after needle
//	#@sig("needle", "golden")       signature help just after needle
//
// Diagnostics match diag markers 1:1, and hints match hint markers 1:1
// when there is any (both before any other marker runs). The other
// markers run in file order, so a command that selects a case affects the
// markers below it. Sections out/symbols and out/lenses, when present,
// are the document's symbols and code lenses after every marker ran. go
// test ./lsp -update rewrites the golden sections.
func TestScenarios(t *testing.T) {
	paths, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no scenarios: %v", err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			runScenario(t, path)
		})
	}
}

type marker struct {
	name string
	args []string
	line int    // 0-based
	code string // the line before the first "#@"
	pos  int    // byte offset of the line start
}

// arg returns argument i ("" when absent).
func (m marker) arg(i int) string {
	if i < len(m.args) {
		return m.args[i]
	}
	return ""
}

func parseMarkers(t *testing.T, src string) []marker {
	var out []marker
	pos := 0
	for i, line := range strings.SplitAfter(src, "\n") {
		start := pos
		pos += len(line)
		at := strings.Index(line, "#@")
		if at < 0 {
			continue
		}
		code := line[:at]
		rest := strings.TrimRight(line[at:], "\r\n")
		for rest != "" {
			if !strings.HasPrefix(rest, "#@") {
				t.Fatalf("line %d: text after markers: %q", i+1, rest)
			}
			rest = rest[2:]
			open := strings.IndexByte(rest, '(')
			if open < 0 {
				t.Fatalf("line %d: marker without arguments", i+1)
			}
			m := marker{name: rest[:open], line: i, code: code, pos: start}
			rest = rest[open+1:]
			for {
				rest = strings.TrimLeft(rest, " ")
				if strings.HasPrefix(rest, ")") {
					rest = rest[1:]
					break
				}
				var arg string
				if strings.HasPrefix(rest, `"`) {
					q, err := strconv.QuotedPrefix(rest)
					if err != nil {
						t.Fatalf("line %d: %v", i+1, err)
					}
					arg, _ = strconv.Unquote(q)
					rest = rest[len(q):]
				} else {
					n := strings.IndexAny(rest, ",)")
					if n < 0 {
						t.Fatalf("line %d: unterminated marker", i+1)
					}
					arg, rest = strings.TrimSpace(rest[:n]), rest[n:]
				}
				m.args = append(m.args, arg)
				rest = strings.TrimLeft(rest, " ")
				rest = strings.TrimPrefix(rest, ",")
			}
			out = append(out, m)
			rest = strings.TrimLeft(rest, " ")
		}
	}
	return out
}

func runScenario(t *testing.T, path string) {
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var name, src, settings string
	goldens := map[string]string{}
	for _, f := range ar.Files {
		switch {
		case strings.HasSuffix(f.Name, ".py") && name == "":
			name, src = f.Name, string(f.Data)
		case f.Name == "settings.json":
			settings = string(f.Data)
		case strings.HasPrefix(f.Name, "out/"):
			goldens[strings.TrimPrefix(f.Name, "out/")] = string(f.Data)
		}
	}
	if name == "" {
		t.Fatal("no .py file")
	}
	c := newClientIn(t, fullCaps(), strings.TrimSpace(settings), "/tilels-test")
	if settings != "" {
		c.mu.Lock()
		c.settings = json.RawMessage(strings.TrimSpace(settings))
		c.mu.Unlock()
	}
	u := uri.File("/tilels-test/" + name)
	c.open(u, 1, src)
	pub := c.waitDiags(u, 1)
	m := NewMapper([]byte(src))
	markers := parseMarkers(t, src)
	got := map[string]string{}
	ctx := context.Background()
	scrub := cliOutputs(t, name, src, settings)

	// at returns the position of a marker's needle on its line.
	at := func(mk marker, needle string) protocol.Position {
		i := strings.Index(mk.code, needle)
		if i < 0 {
			t.Fatalf("line %d: %q not found before the markers", mk.line+1, needle)
		}
		return m.Position(mk.pos + i)
	}

	// after returns the position just after a marker's needle on its line.
	after := func(mk marker, needle string) protocol.Position {
		i := strings.Index(mk.code, needle)
		if i < 0 {
			t.Fatalf("line %d: %q not found before the markers", mk.line+1, needle)
		}
		return m.Position(mk.pos + i + len(needle))
	}

	// Diagnostics: 1:1 with diag markers.
	used := make([]bool, len(markers))
	for _, d := range pub.Diagnostics {
		code, _ := d.Code.(protocol.String)
		msg, _ := d.Message.(protocol.String)
		found := false
		for i, mk := range markers {
			if used[i] || mk.name != "diag" || uint32(mk.line) != d.Range.Start.Line {
				continue
			}
			if at(mk, mk.arg(0)) != d.Range.Start || string(code) != mk.arg(1) || !strings.Contains(string(msg), mk.arg(2)) {
				continue
			}
			if n := mk.arg(3); n != "" && n != strconv.Itoa(len(d.RelatedInformation)) {
				t.Errorf("line %d: %s has %d related entries, want %s", mk.line+1, code, len(d.RelatedInformation), n)
			}
			used[i], found = true, true
			break
		}
		if !found {
			t.Errorf("unexpected diagnostic %d:%d %s: %s", d.Range.Start.Line+1, d.Range.Start.Character+1, code, msg)
		}
	}
	for i, mk := range markers {
		if mk.name == "diag" && !used[i] {
			t.Errorf("line %d: missing diagnostic %s at %q (%q)", mk.line+1, mk.arg(1), mk.arg(0), mk.arg(2))
		}
	}

	// Inlay hints: 1:1 by line with hint markers, when there are any.
	var wantHints []string
	for _, mk := range markers {
		if mk.name == "hint" {
			wantHints = append(wantHints, fmt.Sprintf("%d: %s", mk.line+1, mk.arg(0)))
		}
	}
	if len(wantHints) > 0 {
		end := m.Position(len(src))
		hints, err := c.server.InlayHint(ctx, &protocol.InlayHintParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Range: protocol.Range{End: end}})
		if err != nil {
			t.Fatal(err)
		}
		var gotHints []string
		for _, h := range hints {
			label, _ := h.Label.(protocol.String)
			gotHints = append(gotHints, fmt.Sprintf("%d: %s", h.Position.Line+1, label))
		}
		slices.Sort(wantHints)
		slices.Sort(gotHints)
		if !slices.Equal(gotHints, wantHints) {
			t.Errorf("inlay hints:\ngot  %q\nwant %q", gotHints, wantHints)
		}
	}

	for _, mk := range markers {
		switch mk.name {
		case "diag", "hint":
		case "hover":
			h := c.hover(u, at(mk, mk.arg(0)))
			if mk.arg(1) == "" {
				if h != nil {
					t.Errorf("line %d: unexpected hover at %q:\n%s", mk.line+1, mk.arg(0), hoverValue(h))
				}
				continue
			}
			if h == nil {
				got[mk.arg(1)] = "no hover\n"
				continue
			}
			got[mk.arg(1)] = fmt.Sprintf("range %s\n%s%s", rangeString(h.Range), hoverKind(h), hoverValue(h))
		case "def":
			res, err := c.server.Definition(ctx, &protocol.DefinitionParams{TextDocumentPositionParams: protocol.TextDocumentPositionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Position: at(mk, mk.arg(0))}})
			if err != nil {
				t.Fatal(err)
			}
			locs, _ := res.(protocol.LocationSlice)
			i := strings.Index(src, mk.arg(1))
			if i < 0 {
				t.Fatalf("line %d: target %q not in the file", mk.line+1, mk.arg(1))
			}
			if len(locs) != 1 || locs[0].Range.Start != m.Position(i) {
				t.Errorf("line %d: definition of %q = %v, want %v", mk.line+1, mk.arg(0), locs, m.Position(i))
			}
		case "codeaction":
			p := at(mk, mk.arg(0))
			acts, err := c.server.CodeAction(ctx, &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Range: protocol.Range{Start: p, End: p}})
			if err != nil {
				t.Fatal(err)
			}
			var titles []string
			found := false
			for _, a := range acts {
				ca, ok := a.(*protocol.CodeAction)
				if !ok {
					continue
				}
				titles = append(titles, ca.Title)
				if ca.Title == mk.arg(1) {
					found = true
					got[mk.arg(2)] = scrub(renderAction(ca))
				}
			}
			if !found {
				t.Errorf("line %d: no code action %q (have %q)", mk.line+1, mk.arg(1), titles)
			}
		case "command":
			args := []protocol.LSPAny{mustJSON(string(u))}
			if mk.arg(1) != "" {
				args = append(args, mustJSON(mk.arg(1)))
			}
			if mk.arg(3) != "" {
				args = append(args, protocol.LSPAny(mk.arg(3)))
			}
			res, err := c.server.ExecuteCommand(ctx, &protocol.ExecuteCommandParams{Command: mk.arg(0), Arguments: args})
			if err != nil {
				got[mk.arg(2)] = fmt.Sprintf("error: %v\n", err)
				continue
			}
			got[mk.arg(2)] = scrub(renderCommand(t, c, res))
		case "hints":
			got[mk.arg(0)] = renderHints(t, c, u, m.Position(len(src)))
		case "lenses":
			got[mk.arg(0)] = renderLenses(t, c, u)
		case "outputranges":
			got[mk.arg(2)] = renderOutputRanges(t, c, u, src, mk.arg(0), mk.arg(1)) // output_ranges_test.go
		case "complete", "sig": // completion_test.go
			got[mk.arg(1)] = renderAssist(t, c, u, mk.name, after(mk, mk.arg(0)))
		default:
			t.Fatalf("line %d: unknown marker %q", mk.line+1, mk.name)
		}
	}
	if _, ok := goldens["symbols"]; ok || *update {
		res, err := c.server.DocumentSymbol(ctx, &protocol.DocumentSymbolParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
		if err != nil {
			t.Fatal(err)
		}
		got["symbols"] = renderSymbols(res)
	}
	if _, ok := goldens["lenses"]; ok || *update {
		got["lenses"] = renderLenses(t, c, u)
	}
	checkGoldens(t, path, ar, goldens, got)
}

func renderLenses(t *testing.T, c *testClient, u uri.URI) string {
	res, err := c.server.CodeLens(context.Background(), &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, l := range res {
		fmt.Fprintf(&b, "%s %q %s %s\n", rangeString(&l.Range), l.Command.Title, l.Command.Command, argsString(l.Command.Arguments))
	}
	return b.String()
}

// renderHints renders every inlay hint: position, label, tooltip.
func renderHints(t *testing.T, c *testClient, u uri.URI, end protocol.Position) string {
	hints, err := c.server.InlayHint(context.Background(), &protocol.InlayHintParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}, Range: protocol.Range{End: end}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, h := range hints {
		label, _ := h.Label.(protocol.String)
		tip, _ := h.Tooltip.(protocol.String)
		fmt.Fprintf(&b, "%d:%d %s\n  %s\n", h.Position.Line+1, h.Position.Character+1, label, tip)
	}
	return b.String()
}

// cliOutputs returns a function that replaces, in a rendered result, the
// exact CUDA and TIRx texts tilels --lower prints for the file (all
// kernels, or one with --kernel) by a placeholder: the server must produce
// the CLI's output, and the goldens stay independent of the printers.
func cliOutputs(t *testing.T, name, src, settings string) func(string) string {
	opts := lower.Options{Reference: "0.25"}
	if settings != "" {
		st, err := mergeSettings(defaultSettings(), []byte(settings))
		if err != nil {
			t.Fatal(err)
		}
		opts = st.options()
	}
	if opts.Reference == "" {
		opts.Reference = "0.25" // as the harness's server (startServerWith)
	}
	file := source.NewFile(name, []byte(src))
	if opts.LineDirectives != nil {
		// The lineDirectives setting: the directives name this file, as
		// tilels --lower names its input.
		opts.LineDirectives = &lower.LineDirectives{Source: file}
	}
	res := lower.Analyze(file, opts)
	type repl struct{ text, with string }
	var rs []repl
	add := func(ks []*lower.Kernel, what string) {
		if cu, err := lower.CUDA(ks, opts); err == nil {
			rs = append(rs, repl{cu, fmt.Sprintf("<CUDA of %s, as tilels --lower prints it>\n", what)})
		}
		rs = append(rs, repl{lower.TIRx(ks), fmt.Sprintf("<TIRx of %s, as tilels --lower --emit tirx prints it>\n", what)})
	}
	// The outputs of --case N (the N-th case of every kernel def, a def
	// without cases for N = 1), then of every kernel.
	cases := 1
	for _, k := range res.Kernels {
		cases = max(cases, k.CaseCount)
	}
	caseOf := func(ks []*lower.Kernel, n int) []*lower.Kernel {
		var out []*lower.Kernel
		for _, k := range ks {
			if k.CaseIndex == n || (k.CaseCount <= 1 && n == 1) {
				out = append(out, k)
			}
		}
		return out
	}
	for n := cases; n >= 1 && cases > 1; n-- {
		if ks := caseOf(res.Kernels, n); len(ks) > 0 {
			add(ks, fmt.Sprintf("all kernels, --case %d", n))
		}
		for _, k := range res.Kernels {
			if ks := caseOf(res.Select(k.Name), n); len(ks) > 0 {
				add(ks, fmt.Sprintf("kernel %s, --case %d", k.Name, n))
			}
		}
	}
	add(res.Kernels, "all kernels")
	for _, k := range res.Kernels {
		add(res.Select(k.Name), "kernel "+k.Name)
	}
	// Longest first: one kernel's TIRx is part of the whole file's.
	slices.SortStableFunc(rs, func(a, b repl) int { return len(b.text) - len(a.text) })
	return func(s string) string {
		for _, r := range rs {
			if r.text != "" {
				s = strings.ReplaceAll(s, r.text, r.with)
			}
		}
		return s
	}
}

func checkGoldens(t *testing.T, path string, ar *txtar.Archive, want, got map[string]string) {
	if *update {
		for name, text := range got {
			set := false
			for i := range ar.Files {
				if ar.Files[i].Name == "out/"+name {
					ar.Files[i].Data, set = []byte(text), true
				}
			}
			if !set {
				ar.Files = append(ar.Files, txtar.File{Name: "out/" + name, Data: []byte(text)})
			}
		}
		if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for name, text := range got {
		w, ok := want[name]
		if !ok {
			t.Errorf("no golden out/%s (run go test ./lsp -update); got:\n%s", name, text)
			continue
		}
		if w != text {
			t.Errorf("out/%s differs (run go test ./lsp -update and review the diff)\n--- got\n%s\n--- want\n%s", name, text, w)
		}
	}
	for name := range want {
		if _, ok := got[name]; !ok {
			t.Errorf("golden out/%s is not produced by any marker", name)
		}
	}
}

func rangeString(r *protocol.Range) string {
	if r == nil {
		return "none"
	}
	return fmt.Sprintf("%d:%d-%d:%d", r.Start.Line+1, r.Start.Character+1, r.End.Line+1, r.End.Character+1)
}

func argsString(args []protocol.LSPAny) string {
	var s []string
	for _, a := range args {
		s = append(s, string(a))
	}
	return "[" + strings.Join(s, ", ") + "]"
}

func renderAction(a *protocol.CodeAction) string {
	var b strings.Builder
	fmt.Fprintf(&b, "title: %s\n", a.Title)
	if a.Kind != nil {
		fmt.Fprintf(&b, "kind: %s\n", *a.Kind)
	}
	if a.IsPreferred != nil && *a.IsPreferred {
		b.WriteString("preferred\n")
	}
	for _, d := range a.Diagnostics {
		code, _ := d.Code.(protocol.String)
		fmt.Fprintf(&b, "fixes %s %s\n", code, rangeString(&d.Range))
	}
	if a.Disabled.Reason != "" {
		fmt.Fprintf(&b, "disabled: %s\n", a.Disabled.Reason)
	}
	if a.Command.Command != "" {
		fmt.Fprintf(&b, "command: %s %s\n", a.Command.Command, argsString(a.Command.Arguments))
	}
	if a.Edit != nil {
		b.WriteString(renderEdit(a.Edit))
	}
	return b.String()
}

func renderEdit(e *protocol.WorkspaceEdit) string {
	var b strings.Builder
	for _, ch := range e.DocumentChanges {
		switch ch := ch.(type) {
		case *protocol.CreateFile:
			ow := ch.Options != nil && ch.Options.Overwrite != nil && *ch.Options.Overwrite
			fmt.Fprintf(&b, "create %s overwrite=%v\n", uri.Basename(ch.URI), ow)
		case *protocol.TextDocumentEdit:
			for _, e := range ch.Edits {
				te, _ := e.(*protocol.TextEdit)
				fmt.Fprintf(&b, "edit %s %s:\n%s", uri.Basename(ch.TextDocument.URI), rangeString(&te.Range), te.NewText)
				if !strings.HasSuffix(te.NewText, "\n") {
					b.WriteString("\n") // a rename: the golden section ends in one
				}
			}
		default:
			fmt.Fprintf(&b, "change %T\n", ch)
		}
	}

	return b.String()
}

// renderCommand renders a command's JSON result; a tilels-lowered URI it
// returns is fetched (workspace/textDocumentContent), as an editor would.
func renderCommand(t *testing.T, c *testClient, res protocol.LSPAny) string {
	var obj map[string]any
	if err := json.Unmarshal(res, &obj); err != nil {
		t.Fatalf("command result %s: %v", res, err)
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		v := obj[k]
		if s, ok := v.(string); ok && strings.Contains(s, "\n") {
			fmt.Fprintf(&b, "=== %s ===\n%s", k, s)
			continue
		}
		fmt.Fprintf(&b, "%s: %v\n", k, v)
	}
	if s, ok := obj["uri"].(string); ok && strings.HasPrefix(s, loweredScheme+":") {
		r, err := c.server.TextDocumentContent(context.Background(), &protocol.TextDocumentContentParams{URI: uri.URI(s)})
		if err != nil {
			t.Fatalf("textDocumentContent %s: %v", s, err)
		}
		fmt.Fprintf(&b, "=== content ===\n%s", r.Text)
	}
	c.mu.Lock()
	for _, e := range c.applied {
		b.WriteString("=== applied ===\n" + renderEdit(&e.Edit))
	}
	c.applied = nil
	c.mu.Unlock()
	return b.String()
}

func renderSymbols(res protocol.DocumentSymbolResult) string {
	var b strings.Builder
	var walk func(ss []protocol.DocumentSymbol, depth int)
	walk = func(ss []protocol.DocumentSymbol, depth int) {
		for _, s := range ss {
			detail := ""
			if s.Detail != nil {
				detail = *s.Detail
			}
			fmt.Fprintf(&b, "%s%s kind=%d %s sel=%s %s\n", strings.Repeat("  ", depth), s.Name, s.Kind, rangeString(&s.Range), rangeString(&s.SelectionRange), detail)
			walk(s.Children, depth+1)
		}
	}
	if tree, ok := res.(protocol.DocumentSymbolSlice); ok {
		walk(tree, 0)
	}
	return b.String()
}
