package machine

import (
	"bytes"
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// Bounds of a Compiler's caches.
const (
	// MemEntries is how many artifacts a Compiler keeps in memory (a
	// small kernel's is about 30 KB: PTX and SASS text).
	MemEntries = 64
	// DiskEntries is how many artifacts the disk cache keeps; the least
	// recently used go first.
	DiskEntries = 512
)

// DefaultDir is the disk cache directory: os.UserCacheDir()/tilels/machine
// ("" when the user has no cache directory).
func DefaultDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "tilels", "machine")
}

// Compiler compiles .cu texts with one Tool and caches the artifacts by
// content. It is safe for concurrent use: the same text asked twice at
// once is compiled once, and at most Parallel nvcc processes run at a
// time.
type Compiler struct {
	Tool Tool
	// Dir is the disk cache directory ("" for none).
	Dir string

	sem chan struct{}

	mu       sync.Mutex
	mem      map[string]*list.Element // key -> element of lru (*entry)
	lru      *list.List
	inflight map[string]*flight
	// Compiles counts the nvcc runs (tests, benchmarks).
	compiles int
}

type entry struct {
	key string
	art *Artifact
}

type flight struct {
	done chan struct{}
	art  *Artifact
	err  error
}

// NewCompiler returns a Compiler for t caching on disk in dir ("" for
// none), running at most parallel nvcc processes (1 when < 1).
func NewCompiler(t Tool, dir string, parallel int) *Compiler {
	return &Compiler{Tool: t, Dir: dir, sem: make(chan struct{}, max(parallel, 1)),
		mem: map[string]*list.Element{}, lru: list.New(), inflight: map[string]*flight{}}
}

// cacheFormat names the shape of a cached Artifact and of the parsing
// that made it: change it when either changes, so no older entry is read.
const cacheFormat = "tilels-machine-1"

// Key is the cache key of cu compiled for arch: the SHA-256 of the cache
// format, the flags, the arch, nvcc's version, the disassembler and the
// text.
func (c *Compiler) Key(cu, arch string) string {
	h := sha256.New()
	for _, s := range []string{cacheFormat, Flags, arch, c.Tool.Version, c.Tool.DisasmKind, cu} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Cached returns the artifact of cu for arch when it is in memory or on
// disk, without compiling.
func (c *Compiler) Cached(cu, arch string) (*Artifact, bool) {
	key := c.Key(cu, arch)
	if a := c.memGet(key); a != nil {
		return a, true
	}
	if a := c.diskGet(key); a != nil {
		c.memPut(key, a)
		return a, true
	}
	return nil, false
}

// Compile returns the artifact of cu compiled for arch: from the cache,
// else compiled now (waiting for a compilation of the same text already
// running). The error is for I/O and a cancelled ctx only.
func (c *Compiler) Compile(ctx context.Context, cu, arch string) (*Artifact, error) {
	key := c.Key(cu, arch)
	if a := c.memGet(key); a != nil {
		return a, nil
	}
	c.mu.Lock()
	if f := c.inflight[key]; f != nil {
		c.mu.Unlock()
		select {
		case <-f.done:
			if f.err != nil && ctx.Err() == nil && f.err == context.Canceled {
				return c.Compile(ctx, cu, arch) // the first asker gave up; try again
			}
			return f.art, f.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	f := &flight{done: make(chan struct{})}
	c.inflight[key] = f
	c.mu.Unlock()

	f.art, f.err = c.load(ctx, key, cu, arch)
	c.mu.Lock()
	delete(c.inflight, key)
	c.mu.Unlock()
	close(f.done)
	return f.art, f.err
}

func (c *Compiler) load(ctx context.Context, key, cu, arch string) (*Artifact, error) {
	if a := c.diskGet(key); a != nil {
		c.memPut(key, a)
		return a, nil
	}
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	a, err := c.Tool.compile(ctx, cu, arch)
	<-c.sem
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.compiles++
	c.mu.Unlock()
	c.memPut(key, a)
	if a.Failed == "" {
		c.diskPut(key, a) // a failure is kept in memory only
	}
	return a, nil
}

// Compiles is the number of nvcc runs so far.
func (c *Compiler) Compiles() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.compiles
}

func (c *Compiler) memGet(key string) *Artifact {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.mem[key]; e != nil {
		c.lru.MoveToFront(e)
		return e.Value.(*entry).art
	}
	return nil
}

func (c *Compiler) memPut(key string, a *Artifact) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.mem[key]; e != nil {
		c.lru.MoveToFront(e)
		return
	}
	c.mem[key] = c.lru.PushFront(&entry{key: key, art: a})
	for c.lru.Len() > MemEntries {
		last := c.lru.Back()
		c.lru.Remove(last)
		delete(c.mem, last.Value.(*entry).key)
	}
}

// diskGet reads <Dir>/<key>.gob and marks it used (its modification
// time); a missing or unreadable file is a miss.
func (c *Compiler) diskGet(key string) *Artifact {
	if c.Dir == "" {
		return nil
	}
	p := filepath.Join(c.Dir, key+".gob")
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	var a Artifact
	if gob.NewDecoder(bytes.NewReader(data)).Decode(&a) != nil {
		os.Remove(p)
		return nil
	}
	now := time.Now()
	os.Chtimes(p, now, now)
	return &a
}

// diskPut writes the artifact atomically, then drops the least recently
// used files over DiskEntries. Errors are ignored: the disk cache is an
// optimisation.
func (c *Compiler) diskPut(key string, a *Artifact) {
	if c.Dir == "" {
		return
	}
	if os.MkdirAll(c.Dir, 0o755) != nil {
		return
	}
	var buf bytes.Buffer
	if gob.NewEncoder(&buf).Encode(a) != nil {
		return
	}
	tmp, err := os.CreateTemp(c.Dir, ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(buf.Bytes())
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), filepath.Join(c.Dir, key+".gob")) != nil {
		os.Remove(tmp.Name())
		return
	}
	prune(c.Dir, DiskEntries)
}

// prune removes the oldest .gob files of dir beyond keep.
func prune(dir string, keep int) {
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) <= keep {
		return
	}
	type file struct {
		name string
		mod  time.Time
	}
	var fs []file
	for _, e := range ents {
		if filepath.Ext(e.Name()) != ".gob" {
			continue
		}
		if fi, err := e.Info(); err == nil {
			fs = append(fs, file{e.Name(), fi.ModTime()})
		}
	}
	if len(fs) <= keep {
		return
	}
	slices.SortFunc(fs, func(a, b file) int { return b.mod.Compare(a.mod) })
	for _, f := range fs[keep:] {
		os.Remove(filepath.Join(dir, f.name))
	}
}
