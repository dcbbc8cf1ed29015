// Package benchcorpus builds the large TIRx files the benchmarks and the
// incremental-analysis tests run on: the bundled examples' kernels repeated
// under fresh names (def roundtrip → def roundtrip_17), after their imports
// and module constants, written once. The output depends only on the
// examples, so benchmark figures compare across packages.
package benchcorpus

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

var defRE = regexp.MustCompile(`(?m)^def (\w+)\(`)

// Build returns a file of at least lines lines made from the *.py files in
// dir (testdata/examples).
func Build(dir string, lines int) (string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.py"))
	if err != nil {
		return "", err
	}
	if len(paths) == 0 {
		return "", fmt.Errorf("no examples in %s", dir)
	}
	var header, bodies []string
	seen := map[string]bool{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return "", err
		}
		text := string(data)
		i := strings.Index(text, "@T.prim_func")
		if i < 0 {
			return "", fmt.Errorf("%s has no @T.prim_func", p)
		}
		for _, l := range strings.Split(text[:i], "\n") {
			if l != "" && !strings.HasPrefix(l, "#") && !seen[l] {
				seen[l] = true
				header = append(header, l)
			}
		}
		// The examples pin their release at the end ("# tilels:
		// reference=0.25"); the corpus pins it once, at the top.
		body := text[i:]
		if j := strings.Index(body, "\n# tilels: reference="); j >= 0 {
			body = strings.TrimRight(body[:j], "\n") + "\n"
		}
		bodies = append(bodies, body)
	}
	var b strings.Builder
	b.WriteString("# tilels: reference=0.25\n")
	b.WriteString(strings.Join(header, "\n") + "\n\n")
	n := strings.Count(b.String(), "\n")
	for k := 0; n < lines; k++ {
		body := defRE.ReplaceAllString(bodies[k%len(bodies)], fmt.Sprintf("def ${1}_%d(", k))
		b.WriteString(body)
		b.WriteString("\n\n")
		n += strings.Count(body, "\n") + 2
	}
	return b.String(), nil
}
