package eval

import (
	"math"

	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
)

// The value budget. The step budget bounds how many operations a unit
// runs, but one operation can double a string or a list, so a few lines
// of Python could otherwise build gigabytes (`s = s + s` in a loop,
// f"{0:1000000000}", sum(tuples, ())). Every str, list, tuple and dict the
// evaluator builds is therefore charged, through charge, against a byte
// budget: Options.MaxBytes for each evaluation unit (the same units as
// the step budget) and fileBytesFactor times that for the whole file.
// Where the size of a result is known from its operands (concatenation,
// repetition, join, replace, padding to a format width, zfill) it is
// charged before anything is allocated; where it is known only while it
// is built (formatting, repr) the builder stops at the budget. Running
// out stops the unit like the step budget, with one eval/too-large error
// at the expression that would have built the value; the other units of
// the file go on.
//
// The costs are estimates of the Go memory a value takes on a 64-bit
// machine (a boxed value is a 32-byte allocation; an element of a list or
// tuple is a 16-byte interface slot), not exact sizes: they only have to
// grow with what is really allocated.

// DefaultMaxBytes is the default value budget of one evaluation unit
// (Options.MaxBytes). Measured: the largest unit of the corpus (every
// program under testdata/ and in the goldens of dsl/eval, lower and lsp)
// charges 3.2 KB and the largest file 5.9 KB; a 30,000-line file of the
// bundled examples charges 627 KB in all. TestCorpusBudget keeps the
// corpus under a budget 64 times smaller. A Python value of 64 MiB has no
// business in a kernel file, and a unit that builds one (a str doubled 10
// times from 64 KB) stops within 0.1 s and about 150 MB of memory.
const DefaultMaxBytes = 64 << 20

// fileBytesFactor is how many times Options.MaxBytes all units of a file
// may charge together: 256 MiB by default, which bounds the memory one
// analysis can hold in values (400 times the 30,000-line file).
const fileBytesFactor = 4

// Value costs in bytes.
const (
	costBox   = 32 // one boxed value: its header, span and payload
	costSlot  = 16 // one element of a list or tuple (an interface slot)
	costEntry = 96 // one dict entry: key and value slots and an index entry
)

// strCost is the cost of a str of n bytes.
func strCost(n int64) int64 { return addCost(costBox, n) }

// seqCost is the cost of a list or tuple of n elements; fresh says the
// elements are new boxed values too (not shared with another container).
func seqCost(n int64, fresh bool) int64 {
	per := int64(costSlot)
	if fresh {
		per += costBox
	}
	return addCost(costBox, mulCost(n, per))
}

// addCost and mulCost saturate instead of overflowing, so a cost computed
// from hostile sizes is at worst huge, never negative.
func addCost(a, b int64) int64 {
	if a < 0 || b < 0 || a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func mulCost(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

// charge accounts n bytes of a value (a what: "str", "list", ...) being
// built by the current unit. It returns false, and stops the unit with an
// eval/too-large error at span, when the unit's or the file's budget
// would be exceeded; nothing should then be allocated.
func (ev *evaluator) charge(span source.Span, what string, n int64) bool {
	if ev.halted {
		return false
	}
	unitLeft := ev.opts.MaxBytes - ev.bytes
	fileMax := fileBytesFactor * ev.opts.MaxBytes
	fileLeft := fileMax - ev.totalBytes
	if n <= unitLeft && n <= fileLeft {
		ev.bytes += n
		ev.totalBytes += n
		return true
	}
	ev.halted = true
	if n > unitLeft {
		ev.report(diag.Errorf(span, CodeTooLarge, "evaluation stopped: a %s of %d bytes would exceed the value budget of %d bytes (%d used)", what, n, ev.opts.MaxBytes, ev.bytes))
	} else {
		ev.report(diag.Errorf(span, CodeTooLarge, "evaluation stopped: a %s of %d bytes would exceed the file's value budget of %d bytes (%d used)", what, n, fileMax, ev.totalBytes))
	}
	return false
}

// refuse stops the unit for a value known only to be longer than the
// room left (a repr cut at the budget).
func (ev *evaluator) refuse(span source.Span, what string) {
	if ev.halted {
		return
	}
	ev.halted = true
	unitLeft := ev.opts.MaxBytes - ev.bytes
	fileMax := fileBytesFactor * ev.opts.MaxBytes
	if fileLeft := fileMax - ev.totalBytes; fileLeft < unitLeft {
		ev.report(diag.Errorf(span, CodeTooLarge, "evaluation stopped: a %s of more than %d bytes would exceed the file's value budget of %d bytes (%d used)", what, fileLeft, fileMax, ev.totalBytes))
		return
	}
	ev.report(diag.Errorf(span, CodeTooLarge, "evaluation stopped: a %s of more than %d bytes would exceed the value budget of %d bytes (%d used)", what, unitLeft, ev.opts.MaxBytes, ev.bytes))
}

// room is how many more bytes the current unit may charge.
func (ev *evaluator) room() int64 {
	if ev.halted {
		return 0
	}
	return max(0, min(ev.opts.MaxBytes-ev.bytes, fileBytesFactor*ev.opts.MaxBytes-ev.totalBytes))
}

// mkList and mkTuple return a list or tuple of elts, charged; fresh says
// the elements were made for it.
func (ev *evaluator) mkList(span source.Span, elts []Value, fresh bool) Value {
	if !ev.charge(span, "list", seqCost(int64(len(elts)), fresh)) {
		return poison(span)
	}
	return &ListV{base{span}, elts}
}

func (ev *evaluator) mkTuple(span source.Span, elts []Value, fresh bool) Value {
	if !ev.charge(span, "tuple", seqCost(int64(len(elts)), fresh)) {
		return poison(span)
	}
	return &TupleV{base{span}, elts}
}

// setEntry stores k: v in d, charging the entry when it is new. ok is
// false when k is unhashable (the caller reports it); a tuple key too
// large to hash is reported here, as eval/too-large. When the budget runs
// out ok is true and the unit is halted.
func (ev *evaluator) setEntry(d *DictV, k, v Value, span source.Span) (ok bool) {
	key, st := hashKeyN(k, maxKeyBytes, 0)
	switch st {
	case keyUnhashable:
		return false
	case keyTooLarge:
		ev.errorf(span, CodeTooLarge, "a tuple nested more than %d deep or with a hash key of more than %d bytes cannot be a dict key here", maxKeyDepth, maxKeyBytes)
		return true
	}
	if _, found := d.index[key]; !found && !ev.charge(span, "dict", addCost(costEntry, int64(len(key)))) {
		return true // halted: the error is reported
	}
	d.setKey(key, k, v)
	return true
}
