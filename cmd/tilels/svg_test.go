package main

import (
	"encoding/xml"
	"strings"
	"testing"
)

// TestEmitSVG: --emit svg --call LINE draws the call at that line (both
// pictures by default, one with --picture), as one well-formed SVG; a
// line without a call fails with exit 1, missing or stray flags are
// usage errors.
func TestEmitSVG(t *testing.T) {
	code, out, stderr := runCLI("--lower", example, "--emit", "svg", "--call", "19")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	var doc struct {
		XMLName xml.Name
		Texts   []string `xml:"text"`
	}
	if err := xml.Unmarshal([]byte(out), &doc); err != nil || doc.XMLName.Local != "svg" {
		t.Fatalf("not an SVG document: %v\n%.300s", err, out)
	}
	all := strings.Join(doc.Texts, "\n")
	for _, want := range []string{"line 19 · Tx.warp.copy → gmem_smem", "partition of A_smem", "bank map: ld A_smem, 16 B"} {
		if !strings.Contains(all, want) {
			t.Errorf("the SVG does not say %q:\n%s", want, all)
		}
	}
	_, bank, _ := runCLI("--lower", example, "--emit", "svg", "--call", "19", "--picture", "bank")
	if strings.Contains(bank, "partition of") || !strings.Contains(bank, "bank map:") {
		t.Errorf("--picture bank:\n%.400s", bank)
	}
	if code, _, stderr := runCLI("--lower", example, "--emit", "svg", "--call", "3"); code != 1 || !strings.Contains(stderr, "no tile call at line 3") {
		t.Errorf("a line without a call: exit %d, stderr %q", code, stderr)
	}
	for _, args := range [][]string{
		{"--emit", "svg"},
		{"--call", "19"},
		{"--emit", "svg", "--call", "19", "--picture", "banks"},
	} {
		if code, _, _ := runCLI(append([]string{"--lower", example}, args...)...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
