package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/release"
)

// Settings are the server settings, section "tilels" of the client's
// configuration (workspace/configuration, didChangeConfiguration, or
// initializationOptions):
//
//	{"arch": "sm_90a", "inlayHints": true, "inlayHintStyle": "readable",
//	 "hoverFormat": "auto", "maxCases": 64,
//	 "bind": {"make_gemm": "M=4096, dtype='float16'"}}
type Settings struct {
	// Arch is the CUDA target architecture; empty (the default, or
	// "auto") chooses per kernel: sm_100a for a kernel that uses tensor
	// memory, gemm_async or tcgen05, else sm_90a (lower.AutoArch).
	Arch string `json:"arch"`
	// InlayHints turns the dispatch hints after tile calls on or off
	// (default on).
	InlayHints bool `json:"inlayHints"`
	// InlayHintStyle is the form of the hints' labels (lower.HintStyle):
	// "readable" (the default, also ""): "→ gmem_smem, 8-wide, 4 rounds";
	// "terse": "→ gmem_smem ×4 ·8".
	InlayHintStyle string `json:"inlayHintStyle"`
	// HoverFormat is the markup of hovers (hover_format.go): "auto" (the
	// default, also "") sends Markdown to a client whose hover
	// contentFormat lists it, else plain text; "markdown" and "plaintext"
	// force one (plain text for clients such as Neovim 0.7 that advertise
	// Markdown but show its tables raw).
	HoverFormat string `json:"hoverFormat"`
	// MaxCases caps the bound cases analysed per kernel def, parametrize
	// grid and CONFIGS list (0: lower's default, 64).
	MaxCases int `json:"maxCases"`
	// Bind maps a function name ("make_gemm", "outer.inner") to bindings
	// in the syntax of the `# tilels: bind` directive: one more directive
	// line of that function (docs/binding.md).
	Bind map[string]string `json:"bind"`
	// ExtraPaths are more directories imports of workspace modules
	// resolve under (after the document's package root, before the
	// workspace folders; relative ones from the first workspace folder),
	// as Pylance's python.analysis.extraPaths (imports.go).
	ExtraPaths []string `json:"extraPaths"`
	// Reference is the reference release to model: "auto" (the default,
	// also "") reads the apache-tvm installed in the workspace's Python
	// environment, else infers it from the file, else takes the newest;
	// "0.25", "0.26" or "0.27" choose one (lower.ChooseReference).
	Reference string `json:"reference"`
	// Python is the interpreter (or environment directory) whose
	// apache-tvm "auto" reads, as python.defaultInterpreterPath; empty:
	// $VIRTUAL_ENV, then .venv and venv in each workspace folder.
	Python string `json:"python"`
	// HoverPicture is what a hover on a tile call's callee shows of the
	// call's pictures (picture.go): "text" (the default: Unicode grids),
	// "image" (an SVG image, for VS Code) or "off".
	HoverPicture string `json:"hoverPicture"`
	// LineDirectives adds #line directives to the lowered CUDA view (and
	// the file tilels.writeCUDA writes), as tilels --lower prints by
	// default: nvcc, compute-sanitizer and Nsight Compute then name the
	// .py line of each tile call. Off by default: the view is for reading.
	LineDirectives bool `json:"lineDirectives"`
	// NVCC is the nvcc the kernels' machine code is compiled with (the
	// def's hover and code lens, the PTX/SASS views: machine.go); empty:
	// $TILELS_NVCC, nvcc on PATH, then $VIRTUAL_ENV's nvidia-cuda-nvcc
	// wheel. It runs a program: editors should let only the user's own
	// settings set it (VS Code: scope "machine").
	NVCC string `json:"nvcc"`
}

// maxCasesLimit bounds the maxCases setting: every case is one analysis
// of the kernel, kept in memory while the document is open.
const maxCasesLimit = 4096

func defaultSettings() *Settings { return &Settings{InlayHints: true} }

// withDefaults returns set with the server's own defaults (Options.Reference)
// filled in where the client set nothing.
func (s *Server) withDefaults(set *Settings) *Settings {
	if set.Reference == "" && s.opts.Reference != "" {
		c := *set
		c.Reference = s.opts.Reference
		return &c
	}
	return set
}

func (s *Settings) options() lower.Options {
	o := lower.Options{Arch: s.Arch, MaxCases: s.MaxCases, Bind: s.Bind, Reference: s.Reference}
	// Every version's publish carries the performance warnings of up to
	// perfBudget kernels: computed as each kernel is dispatched.
	o.PerfAhead, o.PerfWork = perfBudget, lower.PublishWork
	if s.LineDirectives {
		o.LineDirectives = &lower.LineDirectives{} // snapshot.lowered names the files
	}
	return o
}

// analysisChanged reports whether documents analysed under a must be
// analysed again under b.
func (a *Settings) analysisChanged(b *Settings) bool {
	return a.Arch != b.Arch || a.MaxCases != b.MaxCases || !maps.Equal(a.Bind, b.Bind) || !slices.Equal(a.ExtraPaths, b.ExtraPaths) ||
		a.Reference != b.Reference || a.Python != b.Python || a.LineDirectives != b.LineDirectives
}

func (s *Server) settings() *Settings { return s.conf.Load() }

var archRE = regexp.MustCompile(`^sm_[0-9]{2,3}[a-z]?$`)

// mergeSettings reads raw (the "tilels" section, or an object holding it)
// over base. Unknown keys are ignored; a value of the wrong type or an
// unknown architecture is an error and changes nothing.
func mergeSettings(base *Settings, raw []byte) (*Settings, error) {
	var obj map[string]json.RawMessage
	if len(raw) == 0 || string(raw) == "null" {
		return base, nil
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return base, fmt.Errorf("settings: %w", err)
	}
	if inner, ok := obj["tilels"]; ok {
		return mergeSettings(base, inner)
	}
	out := *base
	if a, ok := obj["arch"]; ok && string(a) != "null" {
		if err := json.Unmarshal(a, &out.Arch); err != nil {
			return base, fmt.Errorf("settings: arch: %w", err)
		}
		if out.Arch == "auto" {
			out.Arch = ""
		}
		if out.Arch != "" && !archRE.MatchString(out.Arch) {
			return base, fmt.Errorf("settings: unknown CUDA architecture %q (want e.g. sm_90a, sm_80)", out.Arch)
		}
	}
	if h, ok := obj["inlayHints"]; ok && string(h) != "null" {
		if err := json.Unmarshal(h, &out.InlayHints); err != nil {
			return base, fmt.Errorf("settings: inlayHints: %w", err)
		}
	}
	if h, ok := obj["inlayHintStyle"]; ok && string(h) != "null" {
		if err := json.Unmarshal(h, &out.InlayHintStyle); err != nil {
			return base, fmt.Errorf("settings: inlayHintStyle must be readable or terse, got %s", h)
		}
		if _, ok := lower.ParseHintStyle(out.InlayHintStyle); !ok {
			return base, fmt.Errorf("settings: inlayHintStyle must be readable or terse, got %s", h)
		}
	}
	if h, ok := obj["hoverFormat"]; ok && string(h) != "null" {
		if err := json.Unmarshal(h, &out.HoverFormat); err != nil || !validHoverFormat(out.HoverFormat) {
			return base, fmt.Errorf("settings: hoverFormat must be auto, markdown or plaintext, got %s", h)
		}
	}
	if m, ok := obj["maxCases"]; ok && string(m) != "null" {
		if err := json.Unmarshal(m, &out.MaxCases); err != nil || out.MaxCases < 0 || out.MaxCases > maxCasesLimit {
			return base, fmt.Errorf("settings: maxCases must be a whole number from 1 to %d (0 for the default, 64), got %s", maxCasesLimit, m)
		}
	}
	if b, ok := obj["bind"]; ok && string(b) != "null" {
		var bind map[string]string
		if err := json.Unmarshal(b, &bind); err != nil {
			return base, fmt.Errorf("settings: bind must map function names to bindings such as \"M=4096, dtype='float16'\": %w", err)
		}
		for name := range bind {
			if strings.TrimSpace(name) == "" {
				return base, fmt.Errorf("settings: bind: empty function name")
			}
		}
		if len(bind) == 0 {
			bind = nil
		}
		out.Bind = bind
	}
	if e, ok := obj["extraPaths"]; ok && string(e) != "null" {
		var paths []string
		if err := json.Unmarshal(e, &paths); err != nil {
			return base, fmt.Errorf("settings: extraPaths must be a list of directories: %w", err)
		}
		if len(paths) == 0 {
			paths = nil
		}
		out.ExtraPaths = paths
	}
	if r, ok := obj["reference"]; ok && string(r) != "null" {
		if err := json.Unmarshal(r, &out.Reference); err != nil {
			return base, fmt.Errorf("settings: reference: %w", err)
		}
		if _, auto, ok := lower.ParseReference(out.Reference); !ok {
			return base, fmt.Errorf("settings: reference: unknown release %q (want auto, %s)", out.Reference, release.Names())
		} else if auto {
			out.Reference = ""
		}
	}
	if h, ok := obj["hoverPicture"]; ok && string(h) != "null" {
		if err := json.Unmarshal(h, &out.HoverPicture); err != nil || !validHoverPicture(out.HoverPicture) {
			return base, fmt.Errorf("settings: hoverPicture must be text, image or off, got %s", h)
		}
	}
	if l, ok := obj["lineDirectives"]; ok && string(l) != "null" {
		if err := json.Unmarshal(l, &out.LineDirectives); err != nil {
			return base, fmt.Errorf("settings: lineDirectives: %w", err)
		}
	}
	if p, ok := obj["python"]; ok && string(p) != "null" {
		if err := json.Unmarshal(p, &out.Python); err != nil {
			return base, fmt.Errorf("settings: python: %w", err)
		}
	}
	if p, ok := obj["nvcc"]; ok && string(p) != "null" {
		if err := json.Unmarshal(p, &out.NVCC); err != nil {
			return base, fmt.Errorf("settings: nvcc: %w", err)
		}
	}
	return &out, nil
}

// applySettings installs new settings: a changed architecture, case cap
// or binding re-analyses every open document, changed hints refresh the
// client's hints.
func (s *Server) applySettings(next *Settings) {
	prev := s.conf.Swap(next)
	changed := prev.analysisChanged(next)
	if changed {
		s.log.Info("analysis settings changed", "arch", next.Arch, "maxCases", next.MaxCases, "bind", len(next.Bind))
		s.mu.Lock()
		docs := make([]*document, 0, len(s.docs))
		for _, d := range s.docs {
			docs = append(docs, d)
		}
		s.mu.Unlock()
		for _, d := range docs {
			d.reconfigure(s.docOptions(next, d.path))
		}
	}
	if prev.InlayHints != next.InlayHints || prev.InlayHintStyle != next.InlayHintStyle || changed {
		s.refreshHints()
	}
	if prev.NVCC != next.NVCC && !changed {
		s.machineAll() // machine.go: compile with the new nvcc
	}
}

// pullSettings asks the client for section "tilels" (workspace/configuration).
// It runs off the read loop: the answer comes through it.
func (s *Server) pullSettings(ctx context.Context) {
	gen := s.confAsked.Add(1)
	section := "tilels"
	res, err := s.client.Configuration(ctx, &protocol.ConfigurationParams{Items: []protocol.ConfigurationItem{{Section: &section}}})
	if err != nil {
		s.log.Warn("workspace/configuration failed", "err", err)
		return
	}
	if len(res) == 0 {
		return
	}
	s.updateSettingsGen(ctx, gen, res[0])
}

// updateSettings reads raw over the base settings: the
// initializationOptions over the defaults (a setting the user removed
// returns to that value; a client without a "tilels" section, which
// answers null, keeps the initializationOptions), and reports bad values
// to the user.
func (s *Server) updateSettings(ctx context.Context, raw []byte) {
	s.updateSettingsGen(ctx, s.confAsked.Add(1), raw)
}

// updateSettingsGen is updateSettings for the update numbered gen; it does
// nothing when a newer update has been applied.
func (s *Server) updateSettingsGen(ctx context.Context, gen uint64, raw []byte) {
	s.confMu.Lock()
	defer s.confMu.Unlock()
	if gen < s.confApplied {
		s.log.Debug("dropped settings older than those applied", "update", gen, "applied", s.confApplied)
		return
	}
	s.confApplied = gen
	base := s.base.Load()
	if base == nil {
		base = defaultSettings()
	}
	next, err := mergeSettings(base, raw)
	if err != nil {
		s.log.Warn("ignored settings", "err", err)
		s.notify("showMessage", s.client.ShowMessage(ctx, &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: "tilels: " + err.Error()}))
		return
	}
	s.applySettings(next)
}
