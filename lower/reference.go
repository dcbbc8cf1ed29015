package lower

// Choosing the reference release an analysis models (issue 16): the user's
// setting wins; else the apache-tvm installed in the Python environment the
// workspace uses (read from its *.dist-info/METADATA, never by running
// Python); else what the file itself shows (import paths and dispatch names
// only some releases have); else the newest modelled release.

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/eval"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/dsl/syntax"
	"github.com/tilels/tilels/release"
)

// ReferenceSource says how the release was chosen.
type ReferenceSource string

const (
	// RefSetting: --reference or the tilels.reference setting.
	RefSetting ReferenceSource = "setting"
	// RefDirective: the file's own "# tilels: reference=0.25" line.
	RefDirective ReferenceSource = "directive"
	// RefEnvironment: the apache-tvm installed in the workspace's Python
	// environment.
	RefEnvironment ReferenceSource = "environment"
	// RefFile: a construct of the file that only some releases have.
	RefFile ReferenceSource = "file"
	// RefDefault: nothing said which; the newest modelled release.
	RefDefault ReferenceSource = "default"
)

// Reference is the release an analysis models, and why.
type Reference struct {
	Release release.Release
	Source  ReferenceSource
	// Why is one line for hovers, the status bar and --emit json:
	// "apache-tvm 0.27.0.post1 installed in /ws/.venv".
	Why string
	// Span is the construct that showed the release (RefFile only).
	Span source.Span
	// Env is the apache-tvm found in the environment (RefEnvironment only).
	Env Installed
}

// Line is the one line hovers and tooltips name the profile with:
// "reference: apache-tvm 0.27.0.post1 (auto: installed in /ws/.venv)".
func (r Reference) Line() string {
	return "reference: apache-tvm " + r.Release.String() + " (" + r.how() + ")"
}

// how says in a few words how the release was chosen.
func (r Reference) how() string {
	switch r.Source {
	case RefSetting:
		return "set"
	case RefDirective:
		return "pinned by the file"
	case RefEnvironment:
		if r.Env.Version == r.Release.String() {
			return "auto: installed in " + r.Env.Where
		}
		return "auto: " + r.Why
	case RefFile:
		return "auto: " + r.Why
	}
	return "auto: no apache-tvm found, the newest profile"
}

// Label is the status bar's short form: "TIRx 0.27 ✓ auto". The mark is
// ✓ when the release is known (set, pinned, or the installed version is
// a modelled one) and ≈ when it is a guess (inferred from the file, the
// newest by default, or the nearest profile to an unmodelled version);
// the last word says who chose it (set, pinned, auto).
func (r Reference) Label() string {
	mark, who := "✓", "auto"
	switch r.Source {
	case RefSetting:
		who = "set"
	case RefDirective:
		who = "pinned"
	case RefEnvironment:
		if r.Env.Version != r.Release.String() {
			if _, ok := release.Parse(r.Env.Version); !ok {
				mark = "≈"
			}
		}
	default:
		mark = "≈"
	}
	return "TIRx " + r.Release.Short() + " " + mark + " " + who
}

// Installed is an apache-tvm found in a Python environment.
type Installed struct {
	// Version is the METADATA's Version ("0.27.0.post1"); Where the
	// environment's directory.
	Version, Where string
}

// ParseReference reads a --reference / tilels.reference value: "" and
// "auto" mean automatic (ok, auto), a modelled release its Release.
func ParseReference(s string) (r release.Release, auto, ok bool) {
	switch strings.TrimSpace(s) {
	case "", "auto":
		return 0, true, true
	}
	r, ok = release.Parse(s)
	return r, false, ok
}

// PythonEnvironments lists, in the order they are tried, the environments
// the workspace may use: the configured interpreter's (a path to python
// inside an environment, or the environment's directory), $VIRTUAL_ENV,
// then .venv and venv in each workspace folder.
func PythonEnvironments(interpreter, virtualEnv string, folders []string) []string {
	var out []string
	add := func(d string) {
		if d != "" && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	if interpreter != "" {
		if fi, err := os.Stat(interpreter); err == nil && !fi.IsDir() {
			// <env>/bin/python or <env>\Scripts\python.exe
			add(filepath.Dir(filepath.Dir(interpreter)))
		} else {
			add(interpreter)
		}
	}
	add(virtualEnv)
	for _, f := range folders {
		if f == "" {
			continue
		}
		add(filepath.Join(f, ".venv"))
		add(filepath.Join(f, "venv"))
	}
	return out
}

// FindInstalled returns the apache-tvm of the first environment that has
// one: <env>/lib/python*/site-packages/apache_tvm-*.dist-info/METADATA
// (Lib/site-packages on Windows). ok is false when none has.
func FindInstalled(envs []string) (Installed, bool) {
	for _, env := range envs {
		var metas []string
		for _, pat := range []string{
			filepath.Join(env, "lib", "python*", "site-packages", "apache_tvm-*.dist-info", "METADATA"),
			filepath.Join(env, "Lib", "site-packages", "apache_tvm-*.dist-info", "METADATA"),
		} {
			m, _ := filepath.Glob(pat)
			metas = append(metas, m...)
		}
		slices.Sort(metas)
		for _, m := range metas {
			if v := metadataVersion(m); v != "" {
				return Installed{Version: v, Where: env}, true
			}
		}
	}
	return Installed{}, false
}

// metadataVersion reads the Version: header of a METADATA file ("" when
// unreadable or absent).
func metadataVersion(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			break // end of the headers
		}
		if v, ok := strings.CutPrefix(line, "Version:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// releaseOfInstalled maps an installed version onto a modelled release:
// itself when modelled, else the nearest (a newer unmodelled version gets
// the newest profile, an older one the oldest), with a note.
func releaseOfInstalled(v string) (release.Release, string) {
	if r, ok := release.Parse(v); ok {
		return r, ""
	}
	var maj, min int
	if _, err := fmt.Sscanf(v, "%d.%d", &maj, &min); err == nil && (maj == 0 && min < 25) {
		return release.All[0], fmt.Sprintf(" (not modelled; the oldest profile, %s, is used)", release.All[0].Short())
	}
	return release.Newest, fmt.Sprintf(" (not modelled; the newest profile, %s, is used)", release.Newest.Short())
}

// evidence is one construct of a file that only some releases accept.
type evidence struct {
	in   release.Set
	what string
}

// moduleEvidence: import paths only some releases have (checked as module
// prefixes): the surface list of dsl/eval (release_surface.go).
var moduleEvidence = func() (out []struct {
	prefix string
	ev     evidence
}) {
	for _, c := range eval.Surface() {
		if c.Kind == eval.SurfaceModule {
			out = append(out, struct {
				prefix string
				ev     evidence
			}{c.Name, evidence{c.In, fmt.Sprintf("import path `%s` (%s)", c.Name, releasesPhrase(c.In))}})
		}
	}
	return out
}()

// nameEvidence: names imported from the library that only some releases
// define (bare names of tvm.tirx.layout, T and Tx in the surface list).
var nameEvidence = func() map[string]evidence {
	m := map[string]evidence{}
	for _, c := range eval.Surface() {
		if c.Kind != eval.SurfaceName || strings.HasPrefix(c.Name, "T.cuda.") || strings.HasPrefix(c.Name, "T.ptx.") ||
			strings.HasPrefix(c.Name, "Buffer.") || strings.HasPrefix(c.Name, "SMEMPool.") ||
			strings.HasPrefix(c.Name, "TMEMPool.") { // methods, not names a file imports
			continue
		}
		_, bare, _ := strings.Cut(c.Name, ".")
		what := fmt.Sprintf("`%s` (%s)", bare, releasesPhrase(c.In))
		if c.Instead != "" {
			what = fmt.Sprintf("`%s` (%s; elsewhere %s)", bare, releasesPhrase(c.In), c.Instead)
		}
		if _, dup := m[bare]; !dup {
			m[bare] = evidence{c.In, what}
		}
	}
	return m
}()

// releasesPhrase says which releases a set holds: "0.25 only", "0.26 and
// later", "0.25 and 0.26".
func releasesPhrase(s release.Set) string {
	var in []release.Release
	for _, r := range release.All {
		if s.Has(r) {
			in = append(in, r)
		}
	}
	switch {
	case len(in) == 1:
		return in[0].Short() + " only"
	case len(in) > 1 && in[len(in)-1] == release.Newest && s == release.From(in[0]):
		return in[0].Short() + " and later"
	}
	parts := make([]string, len(in))
	for i, r := range in {
		parts[i] = r.Short()
	}
	return strings.Join(parts, " and ")
}

// libraryEvidence is the evidence of a library name used through the T or
// Tx alias ("T.cuda.elect_sync", "T.ptx.mbarrier.init.shared.b64",
// "T.SwizzleLayout"), or of a ComposeLayout call form.
// Its text is left empty for libraryText: only the first piece's is shown.
func libraryEvidence(name string) (evidence, bool) {
	in, ok := eval.SurfaceSetOf(name)
	if !ok {
		return evidence{}, false
	}
	return evidence{in, ""}, true
}

// libraryText is the text of libraryEvidence(name).
func libraryText(name string, in release.Set) string {
	return fmt.Sprintf("`%s` (%s)", strings.TrimPrefix(name, "layout."), releasesPhrase(in))
}

// dispatchEvidence: `dispatch=` names only some releases register (for
// any op: "reg" is ambiguous, elementwise has it everywhere).
var dispatchEvidence = map[string]evidence{
	"gmem_smem":    {release.Only(release.R025), `dispatch="gmem_smem" (0.25 only; vec_auto from 0.26)`},
	"tma":          {release.Only(release.R025), `dispatch="tma" (0.25 only; tma_auto/tma_explicit from 0.26)`},
	"vec_auto":     {release.From(release.R026), `dispatch="vec_auto" (0.26 and later)`},
	"tma_auto":     {release.From(release.R026), `dispatch="tma_auto" (0.26 and later)`},
	"tma_explicit": {release.From(release.R026), `dispatch="tma_explicit" (0.26 and later)`},
	"vec_16b":      {release.From(release.R026), `dispatch="vec_16b" (0.26 and later)`},
	"vec_32b":      {release.From(release.R026), `dispatch="vec_32b" (0.26 and later)`},
	"vec_64b":      {release.From(release.R026), `dispatch="vec_64b" (0.26 and later)`},
	"vec_128b":     {release.From(release.R026), `dispatch="vec_128b" (0.26 and later)`},
	"vec_256b":     {release.From(release.R026), `dispatch="vec_256b" (0.26 and later)`},
}

// directiveReference reads a "# tilels: reference=0.25" comment (a file
// pinned to a release); an unknown release is ignored here (the
// evaluator's directive check reports it).
func directiveReference(f *syntax.File) (Reference, bool) {
	for _, c := range f.Comments {
		text := strings.TrimSpace(strings.TrimPrefix(c.Text, "#"))
		rest, ok := strings.CutPrefix(text, "tilels:")
		if !ok {
			continue
		}
		v, ok := strings.CutPrefix(strings.TrimSpace(rest), "reference=")
		if !ok {
			continue
		}
		if r, ok := release.Parse(firstField(v)); ok {
			return Reference{Release: r, Source: RefDirective, Span: c.Span,
				Why: "pinned by the file: # tilels: reference=" + r.Short()}, true
		}
	}
	return Reference{}, false
}

// firstField is the first space-separated word of s ("" when none).
func firstField(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

// CodeReference reports a "# tilels: reference=" line naming no modelled
// release.
const CodeReference = "lower/reference"

// referenceDirectiveDiags reports the reference directives of f that name
// no modelled release.
func referenceDirectiveDiags(f *syntax.File) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, c := range f.Comments {
		text := strings.TrimSpace(strings.TrimPrefix(c.Text, "#"))
		rest, ok := strings.CutPrefix(text, "tilels:")
		if !ok {
			continue
		}
		v, ok := strings.CutPrefix(strings.TrimSpace(rest), "reference=")
		if !ok {
			continue
		}
		if _, ok := release.Parse(firstField(v)); !ok {
			out = append(out, diag.Warningf(c.Span, CodeReference,
				"unknown reference release %q in the directive (want %s); the release is chosen without it", firstField(v), release.Names()))
		}
	}
	return out
}

// InferReference returns the release a file's own constructs point to: the
// newest release every piece of evidence admits (when they disagree, the
// first piece wins). ok is false when the file shows nothing.
func InferReference(f *syntax.File) (Reference, bool) {
	type seen struct {
		ev   evidence
		span source.Span
		lib  string // the library name of a libraryEvidence piece
	}
	var found []seen
	aliases := libraryAliases(f)
	syntax.Inspect(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Attribute:
			if root, ok := chainRoot(n); ok {
				if pre, ok := aliases[root]; ok {
					_, path, _ := dottedPath(n)
					if scope, op, ok := strings.Cut(path, "."); ok && pre == "Tx." && txScopes[scope] {
						path = op // Tx.cta.log2 is Tx.log2
					}
					if ev, ok := libraryEvidence(pre + path); ok {
						found = append(found, seen{ev, n.Loc, pre + path})
					}
				}
				return false // the chain's inner attributes are this one's prefixes
			}
		case *syntax.Call:
			if ev, ok := composeFormEvidence(n); ok {
				found = append(found, seen{ev, n.Loc, ""})
			}
		case *syntax.ImportFrom:
			for _, m := range moduleEvidence {
				if n.Module == m.prefix || strings.HasPrefix(n.Module, m.prefix+".") {
					found = append(found, seen{m.ev, n.Loc, ""})
				}
			}
			for _, a := range n.Names {
				for _, m := range moduleEvidence {
					if full := n.Module + "." + a.Name; !strings.HasPrefix(n.Module, m.prefix) && (full == m.prefix || strings.HasPrefix(full, m.prefix+".")) {
						found = append(found, seen{m.ev, a.Loc, ""})
					}
				}
				if pre := libraryPrefix(n.Module); pre != "" {
					if ev, ok := libraryEvidence(pre + a.Name); ok {
						found = append(found, seen{ev, a.Loc, pre + a.Name})
					}
				}
			}
		case *syntax.Import:
			for _, a := range n.Names {
				for _, m := range moduleEvidence {
					if a.Name == m.prefix || strings.HasPrefix(a.Name, m.prefix+".") {
						found = append(found, seen{m.ev, a.Loc, ""})
					}
				}
			}
		case *syntax.Keyword:
			if n.Name != nil && n.Name.Id == "dispatch" {
				if c, ok := n.Value.(*syntax.Constant); ok && c.Kind == syntax.String {
					if ev, ok := dispatchEvidence[c.Str]; ok {
						found = append(found, seen{ev, c.Loc, ""})
					}
				}
			}
		}
		return true
	})
	if len(found) == 0 {
		return Reference{}, false
	}
	set := found[0].ev.in
	for _, s := range found[1:] {
		if both := set & s.ev.in; both != 0 {
			set = both
		}
	}
	rel := release.Newest
	for i := len(release.All) - 1; i >= 0; i-- {
		if set.Has(release.All[i]) {
			rel = release.All[i]
			break
		}
	}
	what := found[0].ev.what
	if found[0].lib != "" {
		what = libraryText(found[0].lib, found[0].ev.in)
	}
	return Reference{Release: rel, Source: RefFile, Span: found[0].span,
		Why: "inferred from the file: " + what}, true
}

// libraryPrefix is how the surface list writes the names of a library
// module: "T.", "Tx.", "layout." ("" for other modules).
func libraryPrefix(module string) string {
	switch module {
	case "tvm.script.tirx", "tvm.tirx.script":
		return "T."
	case "tvm.script.tirx.tile", "tvm.tirx.script.tile":
		return "Tx."
	case "tvm.tirx.layout":
		return "layout."
	}
	return ""
}

// libraryAliases maps the names a file binds to T (tvm.script.tirx) and Tx
// (its tile module) to "T." and "Tx."; T and Tx themselves by default.
func libraryAliases(f *syntax.File) map[string]string {
	m := map[string]string{"T": "T.", "Tx": "Tx."}
	prefix := func(module string) string {
		if p := libraryPrefix(module); p != "layout." {
			return p
		}
		return ""
	}
	syntax.Inspect(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ImportFrom:
			for _, a := range n.Names {
				if p := prefix(n.Module + "." + a.Name); p != "" {
					name := a.Name
					if a.AsName != nil {
						name = a.AsName.Id
					}
					m[name] = p
				}
			}
		case *syntax.Import:
			for _, a := range n.Names {
				if p := prefix(a.Name); p != "" && a.AsName != nil {
					m[a.AsName.Id] = p
				}
			}
		}
		return true
	})
	return m
}

// txScopes are the scope namespaces of Tx (Tx.cta.copy).
var txScopes = map[string]bool{"thread": true, "warp": true, "warpgroup": true, "wg": true, "cta": true, "cluster": true}

// chainRoot is the name a.b.c starts at (ok false when it starts at no
// name), without building the path.
func chainRoot(e *syntax.Attribute) (string, bool) {
	x := e.X
	for {
		switch v := x.(type) {
		case *syntax.Attribute:
			x = v.X
			continue
		case *syntax.Name:
			return v.Id, true
		}
		return "", false
	}
}

// dottedPath splits a.b.c into its root name and "b.c"; ok is false when
// the chain does not start at a name.
func dottedPath(e *syntax.Attribute) (root, path string, ok bool) {
	parts := []string{e.Attr.Id}
	x := e.X
	for {
		switch v := x.(type) {
		case *syntax.Attribute:
			parts = append(parts, v.Attr.Id)
			x = v.X
			continue
		case *syntax.Name:
			slices.Reverse(parts)
			return v.Id, strings.Join(parts, "."), true
		}
		return "", "", false
	}
}

// surfaceForms are the call forms of eval.Surface, listed once:
// composeFormEvidence runs per ComposeLayout call, and Surface copies and
// sorts the whole list (121 kB per analysis of the largest TIRx-kernels
// file, 9 calls).
var surfaceForms = sync.OnceValue(func() (out []eval.Construct) {
	for _, f := range eval.Surface() {
		if f.Kind == eval.SurfaceForm {
			out = append(out, f)
		}
	}
	return out
})

// composeFormEvidence: ComposeLayout(swizzle, tile) is 0.25's form,
// ComposeLayout(per_element, swizzle_len, atom_len, tile) 0.26's and later.
func composeFormEvidence(c *syntax.Call) (evidence, bool) {
	name := ""
	switch fn := c.Func.(type) {
	case *syntax.Name:
		name = fn.Id
	case *syntax.Attribute:
		name = fn.Attr.Id
	}
	if name != "ComposeLayout" {
		return evidence{}, false
	}
	for _, f := range surfaceForms() {
		if n := len(c.Args); (n == 2 && strings.Contains(f.Name, "(swizzle, tile)")) || (n >= 4 && strings.Contains(f.Name, "atom_len")) {
			return evidence{f.In, fmt.Sprintf("`%s` (%s)", f.Name, releasesPhrase(f.In))}, true
		}
	}
	return evidence{}, false
}

// ChooseReference resolves o's reference for the parsed file f.
func (o Options) ChooseReference(f *syntax.File) Reference {
	if o.chosen != nil {
		return *o.chosen
	}
	if r, auto, ok := ParseReference(o.Reference); ok && !auto {
		return Reference{Release: r, Source: RefSetting, Why: "set: reference " + r.Short()}
	}
	if f != nil {
		if r, ok := directiveReference(f); ok {
			return r
		}
	}
	if o.Installed.Version != "" {
		r, note := releaseOfInstalled(o.Installed.Version)
		return Reference{Release: r, Source: RefEnvironment, Env: o.Installed,
			Why: fmt.Sprintf("apache-tvm %s installed in %s%s", o.Installed.Version, o.Installed.Where, note)}
	}
	if f != nil {
		if r, ok := InferReference(f); ok {
			return r
		}
	}
	why := "no Python environment with apache-tvm and nothing in the file names a release: the newest profile"
	if f == nil {
		why = "no Python environment with apache-tvm: the newest profile, unless a file shows another"
	}
	return Reference{Release: release.Newest, Source: RefDefault, Why: why}
}

// referenceNeedles are the texts whose presence InferReference depends on:
// when their counts in a file do not change, neither does the release the
// file shows (a session re-analyses the whole file when they do).
var referenceNeedles = func() [][]byte {
	out := [][]byte{[]byte("reference=")}
	for _, m := range moduleEvidence {
		out = append(out, []byte(m.prefix))
	}
	for n := range nameEvidence {
		out = append(out, []byte(n))
	}
	for n := range dispatchEvidence {
		out = append(out, []byte(`"`+n+`"`), []byte(`'`+n+`'`))
	}
	slices.SortFunc(out, bytes.Compare)
	return out
}()

// referencePrint is the counts of referenceNeedles in src, then the
// library chains InferReference reads (the dotted name after each "ptx." and
// "cuda.", the arguments of each ComposeLayout call, up to 400 bytes).
func referencePrint(src []byte) string {
	var b strings.Builder
	for _, n := range referenceNeedles {
		fmt.Fprintf(&b, "%d,", bytes.Count(src, n))
	}
	for _, n := range [][]byte{[]byte("ptx."), []byte("cuda."), []byte("ComposeLayout(")} {
		rest := src
		for {
			i := bytes.Index(rest, n)
			if i < 0 {
				break
			}
			rest = rest[i+len(n):]
			end := 0
			if n[len(n)-1] == '(' {
				depth := 1
				for end < len(rest) && end < 400 && depth > 0 {
					switch rest[end] {
					case '(':
						depth++
					case ')':
						depth--
					}
					end++
				}
			} else {
				for end < len(rest) && (rest[end] == '.' || rest[end] == '_' || rest[end] == ':' ||
					'a' <= rest[end]|0x20 && rest[end]|0x20 <= 'z' || '0' <= rest[end] && rest[end] <= '9') {
					end++
				}
			}
			b.WriteByte('|')
			b.Write(n)
			b.Write(rest[:end])
		}
	}
	return b.String()
}

// referenceNeedleMax is the length of the longest needle.
var referenceNeedleMax = func() int {
	n := 0
	for _, x := range referenceNeedles {
		n = max(n, len(x))
	}
	return n
}()

// referenceEditChanges reports whether replacing old[p:oldEnd] by
// cur[p:newEnd] changes referencePrint. Outside the edit the texts are
// the same, so an occurrence that does not overlap the edit is counted in
// both or in neither; those that do lie within the edit widened by the
// longest needle on each side.
func referenceEditChanges(old, cur []byte, p, oldEnd, newEnd int) bool {
	lo := max(0, p-referenceNeedleMax)
	return referencePrint(old[lo:min(len(old), oldEnd+referenceNeedleMax)]) !=
		referencePrint(cur[lo:min(len(cur), newEnd+referenceNeedleMax)])
}
