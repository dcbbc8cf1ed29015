package lower

import "testing"

// TestPlainText checks the Markdown constructs hovers use in their plain
// form: tables aligned (an escaped pipe and a code span with a pipe stay
// in their cell), escapes resolved, code spans kept verbatim, fences
// dropped and their code indented, whole-line italics and images.
func TestPlainText(t *testing.T) {
	for _, tc := range []struct{ md, want string }{
		{"**`Tx.warp.copy`** → **`fallback`**\n", "Tx.warp.copy → fallback\n"},
		{"| a | bb |\n|---|---|\n| `x|y` | p \\| q |\n| long cell | z |\n", "a          bb\n---------  -----\nx|y        p | q\nlong cell  z\n"},
		{"- region \\*2\\* \\<x\\> `a\\*b`\n", "- region *2* <x> a\\*b\n"},
		{"`` a`b ``", "a`b"},
		{"_unknown: no launch_\n", "unknown: no launch\n"},
		{"**CUDA**\n```cuda\n{\n\n  x = 1;\n}\n```\nafter\n", "CUDA\n    {\n\n      x = 1;\n    }\nafter\n"},
		{"\n![partition and bank map](data:image/svg+xml;base64,AAAA)\n", "\n[partition and bank map]\n"},
		{"a_b *c", "a_b *c"},
	} {
		if got := PlainText(tc.md); got != tc.want {
			t.Errorf("PlainText(%q)\n got %q\nwant %q", tc.md, got, tc.want)
		}
	}
}
