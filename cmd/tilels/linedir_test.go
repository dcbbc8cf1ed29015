package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// --lower --emit cuda prints #line directives by default: the kernel at
// the .py's absolute path, the host code back at the output file's own
// lines; --no-line-directives prints none.
func TestLineDirectivesFlag(t *testing.T) {
	py, err := filepath.Abs(example)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "k.cu")
	if code, _, stderr := runCLI("--lower", example, "--harness", "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	cu := string(data)
	src, _ := os.ReadFile(example)
	call := 1 + strings.Count(string(src[:strings.Index(string(src), "Tx.")]), "\n")
	if !strings.Contains(cu, "#line ") || !strings.Contains(cu, `"`+py+`"`) {
		t.Errorf("no directive names %s:\n%s", py, cu)
	}
	if !regexp.MustCompile(`(?m)^#line ` + strconv.Itoa(call) + `$`).MatchString(cu) {
		t.Errorf("no directive for the first tile call's line %d", call)
	}
	lines := strings.Split(cu, "\n")
	self := 0
	for i, l := range lines {
		if l == "#line "+strconv.Itoa(i+2)+` "`+out+`"` {
			self++
		}
	}
	if self != 1 {
		t.Errorf("%d directives return to %s at its own line, want 1", self, out)
	}
	code, plain, _ := runCLI("--lower", example, "--harness", "--no-line-directives")
	if code != 0 || strings.Contains(plain, "#line") || !strings.Contains(plain, "__global__") {
		t.Errorf("--no-line-directives: exit %d, directives printed: %v", code, strings.Contains(plain, "#line"))
	}
}
