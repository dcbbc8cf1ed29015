package main

import (
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
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
	for _, want := range []string{"line 19 · Tx.warp.copy → gmem_smem", "partition of A_smem", "bank map: shared load A_smem, 16 B"} {
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

var updateVSCode = flag.Bool("update", false, "rewrite editors/vscode/e2e/picture.svg")

// TestVSCodePictureGolden: the SVG the VS Code end-to-end test expects in
// its picture webview (editors/vscode/e2e/picture.svg, the first copy of
// testdata/examples/copy_fallback.py after the test's edit to a 4x8 tile)
// is what tilels --emit svg draws, so that a change to the pictures shows
// here, in go test, and -update rewrites the golden.
func TestVSCodePictureGolden(t *testing.T) {
	src, err := os.ReadFile("../../testdata/examples/copy_fallback.py")
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(src), "ROWS, COLS = 4, 6", "ROWS, COLS = 4, 8", 1)
	if edited == string(src) {
		t.Fatal("the example no longer has the line the end-to-end test edits")
	}
	in := filepath.Join(t.TempDir(), "copy_fallback.py")
	if err := os.WriteFile(in, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI("--lower", in, "--emit", "svg", "--call", "19")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	const golden = "../../editors/vscode/e2e/picture.svg"
	if *updateVSCode {
		if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != out {
		t.Errorf("%s differs from tilels --emit svg (go test ./cmd/tilels -run TestVSCodePictureGolden -update)", golden)
	}
}
