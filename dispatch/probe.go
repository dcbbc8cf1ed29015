package dispatch

// Probe runs the dispatcher again on a decided call as if its `dispatch=`
// forced the variant named name, in the call's release and dispatch
// context (exec context, launch, lets, loops) with a fresh pass cache, and
// returns that variant's attempt: Selected when it would lower the call,
// else Rejected, Declined or Exception with the reference's reasons. ok is
// false when the release registers no such variant for the op, or the
// decision carries no context (it was not made by Lower).
//
// The decision and its call are not modified: the probe dispatches a copy
// of the call (so concurrent probes of one snapshot are safe).
func (r *Registry) Probe(d *Decision, name string) (a Attempt, ok bool) {
	if d == nil || d.ctx == nil {
		return Attempt{}, false
	}
	tc := *d.ctx.Tile
	tc.Dispatch = name
	c := *d.ctx
	c.Tile, c.state, c.scratch = &tc, map[string]any{}, nil
	_, _, e := r.Select(&c)
	for _, at := range e.Attempts {
		if at.Variant == name {
			return at, true
		}
	}
	return Attempt{}, false
}

// Reason is the attempt's reasons without the "rejected: pred —"
// prefixes ("" for a selected variant).
func (a *Attempt) Reason() string {
	if a.Outcome == Selected || a.Outcome == Skipped {
		return ""
	}
	return a.bareReason()
}
