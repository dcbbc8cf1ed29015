package report_test

// docs/json.schema.json, checked against real documents: the JSON of
// every pipeline golden program and bundled example, one multi-file run
// of tilels --lower (files, a directory, standard input, an input over
// the size limit), and mutations the schema must reject.
//
// validate implements the part of JSON Schema (draft 2020-12) the schema
// uses: type (one or a list), const, enum, properties, required,
// additionalProperties (false or a schema), items, anyOf, minimum,
// pattern, and $ref to "#/$defs/NAME". A keyword outside that list is an
// error, so the schema cannot use one this check would ignore.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/headless"
	"github.com/tilels/tilels/internal/txtar"
	"github.com/tilels/tilels/lower"
	"github.com/tilels/tilels/report"
)

// annotations are keywords that do not constrain.
var annotations = map[string]bool{"$schema": true, "$id": true, "$defs": true, "title": true, "description": true, "$comment": true}

type validator struct {
	root map[string]any
}

func loadSchema(t *testing.T) *validator {
	t.Helper()
	data, err := os.ReadFile("../docs/json.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := json.Unmarshal(data, &root); err != nil {
		t.Fatalf("docs/json.schema.json: %v", err)
	}
	if root["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
		t.Fatalf("docs/json.schema.json: $schema %v, want draft 2020-12", root["$schema"])
	}
	return &validator{root: root}
}

// decode parses JSON with numbers as json.Number, so integers are told
// from other numbers.
func decode(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// validate returns the first way v breaks schema s, at path.
func (vd *validator) validate(s any, v any, path string) error {
	switch s := s.(type) {
	case bool:
		if !s {
			return fmt.Errorf("%s: not allowed", path)
		}
		return nil
	case map[string]any:
		for k, kv := range s {
			if annotations[k] {
				continue
			}
			if err := vd.keyword(s, k, kv, v, path); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("schema at %s is %T, not an object or boolean", path, s)
}

func typeOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case json.Number:
		if _, err := v.Int64(); err == nil {
			return "integer"
		}
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

func equal(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}

func (vd *validator) keyword(s map[string]any, k string, kv any, v any, path string) error {
	switch k {
	case "type":
		var types []string
		switch kv := kv.(type) {
		case string:
			types = []string{kv}
		case []any:
			for _, t := range kv {
				types = append(types, t.(string))
			}
		}
		got := typeOf(v)
		if slices.Contains(types, got) || got == "integer" && slices.Contains(types, "number") {
			return nil
		}
		return fmt.Errorf("%s: %s, want %s", path, got, strings.Join(types, " or "))
	case "const":
		if !equal(kv, v) {
			return fmt.Errorf("%s: %v, want %v", path, v, kv)
		}
	case "enum":
		for _, e := range kv.([]any) {
			if equal(e, v) {
				return nil
			}
		}
		return fmt.Errorf("%s: %v is not one of %v", path, v, kv)
	case "minimum":
		n, ok := v.(json.Number)
		if !ok {
			return nil
		}
		x, _ := n.Float64()
		if x < kv.(float64) {
			return fmt.Errorf("%s: %v < minimum %v", path, n, kv)
		}
	case "pattern":
		str, ok := v.(string)
		if !ok {
			return nil
		}
		if !regexp.MustCompile(kv.(string)).MatchString(str) {
			return fmt.Errorf("%s: %q does not match %s", path, str, kv)
		}
	case "required":
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		for _, r := range kv.([]any) {
			if _, ok := obj[r.(string)]; !ok {
				return fmt.Errorf("%s: lacks %q", path, r)
			}
		}
	case "properties":
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		for name, ps := range kv.(map[string]any) {
			if pv, ok := obj[name]; ok {
				if err := vd.validate(ps, pv, path+"."+name); err != nil {
					return err
				}
			}
		}
	case "additionalProperties":
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		props, _ := s["properties"].(map[string]any)
		for _, name := range sortedKeys(obj) {
			if _, known := props[name]; known {
				continue
			}
			if err := vd.validate(kv, obj[name], path+"."+name); err != nil {
				return err
			}
		}
	case "items":
		arr, ok := v.([]any)
		if !ok {
			return nil
		}
		for i, e := range arr {
			if err := vd.validate(kv, e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case "anyOf":
		var errs []string
		for _, sub := range kv.([]any) {
			err := vd.validate(sub, v, path)
			if err == nil {
				return nil
			}
			errs = append(errs, err.Error())
		}
		return fmt.Errorf("%s: matches none of anyOf: %s", path, strings.Join(errs, "; "))
	case "$ref":
		name, ok := strings.CutPrefix(kv.(string), "#/$defs/")
		defs, _ := vd.root["$defs"].(map[string]any)
		sub, found := defs[name]
		if !ok || !found {
			return fmt.Errorf("schema: unresolved $ref %v", kv)
		}
		return vd.validate(sub, v, path)
	default:
		return fmt.Errorf("schema: keyword %q is not supported by this validator", k)
	}
	return nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (vd *validator) check(t *testing.T, name string, data []byte) {
	t.Helper()
	v, err := decode(data)
	if err != nil {
		t.Fatalf("%s: not JSON: %v", name, err)
	}
	if err := vd.validate(map[string]any(vd.root), v, "$"); err != nil {
		t.Errorf("%s: %v", name, err)
	}
}

// TestJSONSchema validates the document of every golden program and
// bundled example, and of one multi-file run, against the schema.
func TestJSONSchema(t *testing.T) {
	vd := loadSchema(t)
	goldens, _ := filepath.Glob("../lower/testdata/*.txtar")
	var files []*report.File
	for _, p := range goldens {
		ar, err := txtar.ParseFile(p)
		if err != nil {
			t.Fatal(err)
		}
		src, ok := ar.Get("kernel.py")
		if !ok {
			continue
		}
		res := lower.Analyze(source.NewFile(filepath.Base(p), src), lower.Options{Reference: goldenReference(src)})
		res.AddHeadlessDiags()
		f := report.Build(res, nil)
		files = append(files, f)
		vd.check(t, p, report.JSON(report.New(f)))
	}
	if len(files) < 10 {
		t.Fatalf("only %d golden programs", len(files))
	}
	// All of them in one document, with a file that was not read.
	unread := report.Unread(source.NewFile("big.py", nil), lower.Options{}.ChooseReference(nil), []diag.Diagnostic{lower.TooLarge(headless.MaxInputBytes)})
	vd.check(t, "all goldens", report.JSON(report.New(append(files, unread)...)))
	vd.check(t, "no files", report.JSON(report.New()))

	// A real multi-file run: a directory, a file, standard input, an
	// input over the size limit, an arch some calls cannot use.
	dir := t.TempDir()
	examples, _ := filepath.Glob("../testdata/examples/*.py")
	for _, p := range examples {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(p)), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	factory, _ := os.ReadFile("../testdata/agreement/r001_gmem_smem_warp_32x32_f32.py")
	inputs := []string{dir, "../testdata/examples/copy_tma.py", "-"}
	if _, err := os.Stat("/dev/zero"); err == nil {
		inputs = append(inputs, "/dev/zero")
	}
	for _, arch := range []string{"sm_90a", "sm_75"} {
		var out, errb bytes.Buffer
		code := headless.Run(headless.Config{Inputs: inputs, Emit: "json", FailOn: diag.Error, Options: lower.Options{Arch: arch},
			Stdin: bytes.NewReader(factory), Stdout: &out, Stderr: &errb})
		if code != 1 {
			t.Errorf("%s: exit %d, want 1 (/dev/zero is too large, copy_tma lowers for sm_90 only)\n%s", arch, code, errb.String())
		}
		vd.check(t, "multi-file run "+arch, out.Bytes())
		var doc struct{ Files []struct{ File string } }
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if len(doc.Files) != len(examples)+len(inputs)-1 {
			t.Errorf("%s: %d file records for %d examples and %d more inputs", arch, len(doc.Files), len(examples), len(inputs)-1)
		}
	}
}

// TestSchemaValidator checks that the validator rejects what the schema
// forbids: it would otherwise pass anything.
func TestSchemaValidator(t *testing.T) {
	vd := loadSchema(t)
	src, err := os.ReadFile("../testdata/examples/copy_tma.py")
	if err != nil {
		t.Fatal(err)
	}
	res := lower.Analyze(source.NewFile("copy_tma.py", src), lower.Options{Arch: "sm_80"})
	good := string(report.JSON(report.New(report.Build(res, nil))))
	vd.check(t, "copy_tma.py", []byte(good))
	for _, tc := range []struct{ name, old, new, want string }{
		{"schema version", `"schema": 1`, `"schema": 2`, "want 1"},
		{"missing field", `"reference": "0.25.0.post1",`, ``, `lacks "reference"`},
		{"extra field", `"files": [`, `"extra": 1, "files": [`, "$.extra: not allowed"},
		{"wrong type", `"line": 15`, `"line": "15"`, "string, want"},
		{"not an integer", `"line": 15`, `"line": 15.5`, "number, want"},
		{"below minimum", `"line": 15`, `"line": 0`, "minimum"},
		{"enum", `"direction": "g2s"`, `"direction": "sideways"`, "not one of"},
		{"nullable object", `"tma": null`, `"tma": 3`, "anyOf"},
		{"pattern", `"code": "`, `"code": "Bad Code`, "does not match"},
	} {
		if !strings.Contains(good, tc.old) {
			t.Fatalf("%s: %q not in the document", tc.name, tc.old)
		}
		bad := strings.Replace(good, tc.old, tc.new, 1)
		v, err := decode([]byte(bad))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		err = vd.validate(map[string]any(vd.root), v, "$")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error with %q", tc.name, err, tc.want)
		}
	}
	if err := vd.validate(map[string]any{"maxLength": 3.0}, "abcd", "$"); err == nil || !strings.Contains(err.Error(), "not supported") {
		t.Errorf("an unsupported keyword: %v", err)
	}
}

// goldenReference is the release a test program states (see the package's
// testReference); "auto" when it states none.
func goldenReference(src []byte) string {
	if m := regexp.MustCompile(`(?m)^# tilels: reference=(\S+)\s*$`).FindSubmatch(src); m != nil {
		return string(m[1])
	}
	return "auto"
}
