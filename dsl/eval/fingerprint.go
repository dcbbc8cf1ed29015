package eval

import (
	"math"
	"reflect"

	"github.com/tilels/tilels/dsl/source"
)

// fingerprint hashes the evaluator state a bound case can observe (the
// module scopes and every value reachable from them, the imported
// modules, the binding and unbound-parameter bookkeeping), to tell
// whether running a case changed any of it (parallel_cases.go). Two
// fingerprints of one evaluator are equal when no reachable object's
// content and no reachability changed (up to hash collisions of 64
// bits); fingerprints of different evaluators never compare (they hash
// addresses).
//
// It walks the object graph by reflection: every pointer or map reached
// is a node, hashed once by its address and its shallow content (the
// pointers in it by address), and the node hashes are summed, so the
// order of map iteration does not matter. Syntax trees, source files and
// the library tables are never changed by evaluation and are not walked;
// Go closures cannot be looked into (a builtin's captured state is not
// seen: the models keep no state there that a case changes, see
// parallel_cases.go).
func (ev *Evaluator) fingerprint() uint64 {
	w := &fpWalker{seen: map[fpNode]struct{}{}, types: map[reflect.Type]uint64{}}
	root := reflect.ValueOf(ev).Elem()
	t := root.Type()
	h := uint64(fpSeed)
	for i := 0; i < root.NumField(); i++ {
		if fpSkipField[t.Field(i).Name] {
			continue
		}
		h = fpMix(h, w.shallow(root.Field(i)))
	}
	w.sum += h
	for len(w.queue) > 0 {
		v := w.queue[len(w.queue)-1]
		w.queue = w.queue[:len(w.queue)-1]
		w.node(v)
	}
	return w.sum
}

// fpSkipField are the Evaluator fields a case may change without effect
// on a later case: per-unit and per-kernel state restored after each
// unit, the counters and products merged case by case
// (parallel_cases.go), the per-kernel caches of the older dialect, and
// the options (never changed).
var fpSkipField = map[string]bool{
	"file": true, "Opts": true, "prog": true, "sink": true,
	"steps": true, "bytes": true, "Halted": true, "depth": true,
	"Kern": true, "Emit": true, "old": true, "hint": true, "lastCtrl": true,
	"curLoop": true, "loopKinds": true, "tryDepth": true,
	"byDef": true, "entered": true, "bindCache": true,
	"caseSource": true, "caseID": true, "needs": true, "collecting": true,
	"totalSteps": true, "totalBytes": true, "irStmts": true, "tileCalls": true,
	"site": true, "sites": true, "made": true, "madeAtUnit": true, "caseOut": true, "par": true,
	// capacities only (scope_size.go, slab.go): what they hold is never read
	"scopeSize": true, "slabs": true,
}

const fpSeed = 0x9e3779b97f4a7c15

func fpMix(h, x uint64) uint64 {
	h ^= x + fpSeed + (h << 6) + (h >> 2)
	h *= 0xff51afd7ed558ccd
	return h ^ h>>33
}

func fpString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

type fpNode struct {
	addr uintptr
	t    reflect.Type
}

type fpWalker struct {
	seen  map[fpNode]struct{}
	types map[reflect.Type]uint64
	queue []reflect.Value
	sum   uint64
}

var (
	fpSourceFile = reflect.TypeOf(&source.File{})
	fpLibrary    = reflect.TypeOf(&Library{})
	fpSyntaxPkg  = "github.com/tilels/tilels/dsl/syntax"
)

// skip reports whether pointers to t are not walked (immutable during
// evaluation).
func fpSkipType(t reflect.Type) bool {
	if t == fpSourceFile || t == fpLibrary {
		return true
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.PkgPath() == fpSyntaxPkg
}

// visit queues the node of a pointer or map value (once) and returns the
// hash that stands for it in its parent.
func (w *fpWalker) visit(v reflect.Value) uint64 {
	if v.IsNil() {
		return 1
	}
	p := v.Pointer()
	if fpSkipType(v.Type()) {
		return fpMix(uint64(p), 2)
	}
	n := fpNode{p, v.Type()}
	if _, ok := w.seen[n]; !ok {
		w.seen[n] = struct{}{}
		w.queue = append(w.queue, v)
	}
	return fpMix(uint64(p), w.typeHash(v.Type()))
}

func (w *fpWalker) typeHash(t reflect.Type) uint64 {
	h, ok := w.types[t]
	if !ok {
		h = fpString(t.String())
		w.types[t] = h
	}
	return h
}

// node adds the hash of a pointer's or map's content to the sum.
func (w *fpWalker) node(v reflect.Value) {
	h := fpMix(uint64(v.Pointer()), w.typeHash(v.Type()))
	switch v.Kind() {
	case reflect.Pointer:
		h = fpMix(h, w.shallow(v.Elem()))
	case reflect.Map:
		var s uint64
		it := v.MapRange()
		for it.Next() {
			s += fpMix(w.shallow(it.Key()), w.shallow(it.Value()))
		}
		h = fpMix(h, s)
		h = fpMix(h, uint64(v.Len()))
	}
	w.sum += h
}

// shallow hashes v inline: scalars by value, structs, arrays and slices
// by their elements, pointers and maps by address (queued).
func (w *fpWalker) shallow(v reflect.Value) uint64 {
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			return 3
		}
		return 4
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return fpMix(5, uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return fpMix(6, v.Uint())
	case reflect.Float32, reflect.Float64:
		return fpMix(7, math.Float64bits(v.Float()))
	case reflect.Complex64, reflect.Complex128:
		c := v.Complex()
		return fpMix(fpMix(8, math.Float64bits(real(c))), math.Float64bits(imag(c)))
	case reflect.String:
		return fpMix(9, fpString(v.String()))
	case reflect.Pointer, reflect.Map:
		return w.visit(v)
	case reflect.Interface:
		if v.IsNil() {
			return 10
		}
		e := v.Elem()
		return fpMix(w.typeHash(e.Type()), w.shallow(e))
	case reflect.Struct:
		h := uint64(11)
		for i := 0; i < v.NumField(); i++ {
			h = fpMix(h, w.shallow(v.Field(i)))
		}
		return h
	case reflect.Array:
		h := uint64(12)
		for i := 0; i < v.Len(); i++ {
			h = fpMix(h, w.shallow(v.Index(i)))
		}
		return h
	case reflect.Slice:
		if v.IsNil() {
			return 13
		}
		h := fpMix(14, uint64(v.Len()))
		if v.Type().Elem().Kind() == reflect.Uint8 {
			// Byte slices are file texts, never changed: by address.
			return fpMix(h, uint64(v.Pointer()))
		}
		for i := 0; i < v.Len(); i++ {
			h = fpMix(h, w.shallow(v.Index(i)))
		}
		return h
	case reflect.Func:
		if v.IsNil() {
			return 15
		}
		return fpMix(16, uint64(v.Pointer()))
	case reflect.Chan, reflect.UnsafePointer:
		return fpMix(17, uint64(v.Pointer()))
	}
	return 18
}
