package lsp

import (
	"context"
	"io"
	"testing"
)

// TestSettingsOrder: of two settings updates in flight (the initial
// workspace/configuration pull and a didChangeConfiguration's), the newer
// wins whichever is answered last. Before the updates were numbered, the
// initial pull's late null answer could undo the user's settings (seen as
// a 1-in-6 failure of TestCaseSettings on a busy machine).
func TestSettingsOrder(t *testing.T) {
	s := newServer(Options{Log: io.Discard})
	ctx := context.Background()
	older, newer := s.confAsked.Add(1), s.confAsked.Add(1)
	s.updateSettingsGen(ctx, newer, []byte(`{"arch": "sm_80", "maxCases": 2}`))
	s.updateSettingsGen(ctx, older, []byte(`null`))
	if got := s.settings(); got.Arch != "sm_80" || got.MaxCases != 2 {
		t.Errorf("after an older answer: %+v, want arch sm_80 and maxCases 2", got)
	}
	s.updateSettings(ctx, []byte(`{"arch": "sm_90a"}`))
	if got := s.settings(); got.Arch != "sm_90a" || got.MaxCases != 0 {
		t.Errorf("a newer update was not applied: %+v", got)
	}
}
