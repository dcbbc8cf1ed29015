package lower

import (
	"github.com/tilels/tilels/dsl/syntax"
)

// referenceFor returns the reference to analyse syn under and a check to
// call once the analysis has run. Without a guess (Options.guess) it is
// ChooseReference's, and the check agrees. With one (a session analysing
// a new version of its file as a whole: the previous version's
// reference), the analysis runs under the guess while ChooseReference
// runs on another goroutine; the check returns the chosen reference and
// whether its release differs from the guess's, in which case the caller
// analyses again under it. Analyze reads nothing of the reference but its
// release, so when the releases agree the result is the one
// ChooseReference first would have given (with the chosen reference's
// Why and Span).
//
// Measured (BenchmarkSessionFile, the largest TIRx-kernels file, whose
// release is inferred from its text): choosing walked the whole syntax
// tree, 1.0 ms of each keystroke's critical path, while the second core
// waited for the first kernel to dispatch.
func (o Options) referenceFor(syn *syntax.File) (Reference, func() (Reference, bool)) {
	if _, auto, ok := ParseReference(o.Reference); o.guess == nil || o.chosen != nil || ok && !auto {
		r := o.ChooseReference(syn)
		return r, func() (Reference, bool) { return r, false }
	}
	guess := *o.guess
	ch := make(chan Reference, 1)
	go func() {
		// A panic is met again on the caller's goroutine (the check
		// chooses there), where the caller recovers as it does.
		defer func() {
			if recover() != nil {
				close(ch)
			}
		}()
		ch <- o.ChooseReference(syn)
	}()
	return guess, func() (Reference, bool) {
		r, ok := <-ch
		if !ok {
			r = o.ChooseReference(syn)
		}
		return r, r.Release != guess.Release
	}
}
