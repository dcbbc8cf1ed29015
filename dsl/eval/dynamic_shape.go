package eval

import (
	"fmt"
	"strings"

	"github.com/tilels/tilels/dsl/source"
)

// Buffers whose shape has a runtime dimension (T.match_buffer(h,
// (seq_len, 128)) over a kernel parameter, DeepGEMM's mqa_logits and
// rmsnorm's batch_size). TVM keeps such shapes symbolic; tilels' buffers,
// layouts and dispatch predicates take static shapes, so it does not
// model them. Rather than a silent poison, the name is bound to an opaque
// value whose path says what is missing: every tile call (or other use
// that needs it) then reports "not modelled: dynamic buffer dimension
// `seq_len` of `q`" at itself, once per call, instead of vanishing.

// dynShapePrefix starts the path of such a value (see dynamicShapeWhy).
const dynShapePrefix = "dynamic buffer dimension `"

// unbuiltBuffer is the value of a buffer declaration whose shape could not
// be converted (the reason is reported): an opaque value naming the
// runtime dimension when that was the reason, else poison.
func unbuiltBuffer(shape Value, name string, span source.Span) Value {
	if dim := dynamicDim(shape); dim != "" {
		return &OpaqueV{base{span}, fmt.Sprintf("%s%s` of `%s`", dynShapePrefix, dim, name)}
	}
	return poison(span)
}

// dynamicDim returns the text of the first runtime dimension of a buffer
// shape, "" when it has none.
func dynamicDim(shape Value) string {
	var elts []Value
	if _, ok := toInt(shape); ok {
		return ""
	}
	if isSeq(shape) {
		elts = seqElts(shape)
	} else {
		elts = []Value{shape}
	}
	for _, e := range elts {
		if _, ok := toInt(e); ok {
			continue
		}
		if x, ok := e.(*ExprV); ok {
			return clip(ExprString(x.E), 60)
		}
	}
	return ""
}

// dynamicShapeWhy returns "dynamic buffer dimension `d` of `b`" when path
// is (or is derived from) an unbuilt buffer's path, else "".
func dynamicShapeWhy(path string) string {
	if !strings.HasPrefix(path, dynShapePrefix) {
		return ""
	}
	// prefix + dim + "` of `" + name + "`" + what was derived from it.
	rest := path[len(dynShapePrefix):]
	i := strings.Index(rest, "` of `")
	if i < 0 {
		return ""
	}
	j := strings.IndexByte(rest[i+len("` of `"):], '`')
	if j < 0 {
		return ""
	}
	return path[:len(dynShapePrefix)+i+len("` of `")+j+1]
}
