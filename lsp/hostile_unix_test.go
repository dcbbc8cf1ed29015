//go:build unix

package lsp

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestLoweredViewFIFO: a view of a named pipe inside the workspace is
// refused at once (opening it does not wait for a writer).
func TestLoweredViewFIFO(t *testing.T) {
	ws := t.TempDir()
	fifo := filepath.Join(ws, "pipe.py")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	c := newClientIn(t, fullCaps(), "", ws)
	_, err := loweredView(c, fifo)
	if rpcCode(err) != requestFailed || !strings.Contains(err.Error(), "not a regular file (a named pipe)") {
		t.Errorf("view of a FIFO: %v", err)
	}
}
