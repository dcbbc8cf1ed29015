package lsp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// TestRetention: with more documents open than warmDocs, those used
// least recently drop their analysis; a request for one analyses it again
// and answers as before, without publishing its diagnostics again; an
// edit and a settings change still publish.
func TestRetention(t *testing.T) {
	var analyses atomic.Int32
	idle := make(chan struct{}, 100)
	c := startServerWith(t, Options{hookAnalyze: func() { analyses.Add(1) }, hookIdle: func() { idle <- struct{}{} }})
	initClient(t, c, fullCaps(), "")
	var us []uri.URI
	for i := range warmDocs + 2 {
		u := uri.File(fmt.Sprintf("/w/k%d.py", i))
		us = append(us, u)
		c.open(u, 1, roundtripSrc)
		c.waitDiags(u, 1)
		<-idle // its worker stopped (and the document may sleep)
	}
	want := hoverValue(c.hover(us[len(us)-1], pos(14, 8)))
	if !strings.Contains(want, "gmem_smem") {
		t.Fatalf("hover: %q", want)
	}
	n := analyses.Load()
	if n != int32(len(us)) {
		t.Fatalf("%d analyses for %d documents", n, len(us))
	}
	// The first document is asleep: a hover wakes it.
	if got := hoverValue(c.hover(us[0], pos(14, 8))); got != want {
		t.Errorf("hover of an asleep document:\n%s\nwant\n%s", got, want)
	}
	if got := analyses.Load(); got != n+1 {
		t.Errorf("%d analyses after the hover of an asleep document, want %d", got, n+1)
	}
	// Warm now: no analysis for the next requests.
	c.hover(us[0], pos(14, 8))
	if _, err := c.server.InlayHint(context.Background(), &protocol.InlayHintParams{TextDocument: protocol.TextDocumentIdentifier{URI: us[0]}, Range: protocol.Range{End: pos(100, 0)}}); err != nil {
		t.Fatal(err)
	}
	if got := analyses.Load(); got != n+1 {
		t.Errorf("%d analyses after requests to a warm document, want %d", got, n+1)
	}
	c.mu.Lock()
	published := slices.Clone(c.versions[us[0]])
	c.mu.Unlock()
	if !slices.Equal(published, []int32{1}) {
		t.Errorf("versions published for the woken document: %v, want [1]", published)
	}
	// An edit of an asleep document (us[1]) analyses and publishes it.
	c.change(us[1], 2, partial(0, 0, 0, 0, "# edit\n"))
	if d := c.waitDiags(us[1], 2); len(d.Diagnostics) != 0 {
		t.Errorf("diagnostics after the edit: %v", d.Diagnostics)
	}
}

// TestRetentionDropsFixes: a document that falls asleep forgets its
// pending fallback-fix round, which held its snapshot (and so the whole
// analysis the sleep drops): twenty open files kept every analysis.
func TestRetentionDropsFixes(t *testing.T) {
	defer func(d time.Duration) { fixDelay = d }(fixDelay)
	fixDelay = time.Hour // the rounds stay pending
	idle := make(chan struct{}, 100)
	srv := make(chan *Server, 1)
	c := startServerWith(t, Options{hookIdle: func() { idle <- struct{}{} }, hookServer: func(s *Server) { srv <- s }})
	initClient(t, c, fullCaps(), "")
	s := <-srv
	var us []uri.URI
	for i := range warmDocs + 2 {
		u := uri.File(fmt.Sprintf("/w/fix%d.py", i))
		us = append(us, u)
		c.open(u, 1, fixFirstSrc)
		c.waitDiags(u, 1)
		<-idle
	}
	for i, u := range us {
		d := s.doc(u)
		d.fixes.mu.Lock()
		held := d.fixes.snap != nil
		d.fixes.mu.Unlock()
		asleep := d.isAsleep()
		if asleep && held {
			t.Errorf("document %d is asleep and its fix round still holds a snapshot", i)
		}
		if i >= 2 && !held {
			t.Errorf("warm document %d has no pending fix round (the test no longer exercises one)", i)
		}
		if i < 2 && !asleep {
			t.Errorf("document %d, used least recently, is not asleep", i)
		}
	}
}
