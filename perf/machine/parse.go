package machine

import (
	"bufio"
	"regexp"
	"strconv"
	"strings"
)

// Resources is what ptxas reports of one entry function (nvcc -Xptxas -v).
type Resources struct {
	Symbol       string
	Registers    int
	Barriers     int
	StackFrame   int64 // bytes of local memory per thread the stack frame takes
	SpillStores  int64 // bytes per thread spilled to local memory
	SpillLoads   int64 // bytes per thread loaded back from spills
	StaticShared int64 // bytes of __shared__ arrays ("bytes smem")
}

var (
	ptxasEntry = regexp.MustCompile(`^ptxas info\s*: Compiling entry function '([^']+)'`)
	ptxasProps = regexp.MustCompile(`^ptxas info\s*: Function properties for (\S+)`)
	ptxasFrame = regexp.MustCompile(`^\s*(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads`)
	ptxasUsed  = regexp.MustCompile(`^ptxas info\s*: Used (\d+) registers`)
	ptxasBars  = regexp.MustCompile(`used (\d+) barriers`)
	ptxasSmem  = regexp.MustCompile(`(\d+) bytes smem`)
)

// ParsePtxas reads the resource lines of ptxas -v output (nvcc prints
// them on standard error, among the front end's warnings, which are
// skipped): one record per entry function, in the order ptxas compiled
// them. A "Function properties" block of a non-entry function (a
// device function compiled separately) is skipped.
func ParsePtxas(out string) []Resources {
	var rs []Resources
	cur := -1   // index of the entry being read
	props := "" // the function the next stack-frame line belongs to
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := ptxasEntry.FindStringSubmatch(line); m != nil {
			rs = append(rs, Resources{Symbol: m[1]})
			cur, props = len(rs)-1, ""
			continue
		}
		if m := ptxasProps.FindStringSubmatch(line); m != nil {
			props = m[1]
			continue
		}
		if cur < 0 {
			continue
		}
		r := &rs[cur]
		if m := ptxasFrame.FindStringSubmatch(line); m != nil {
			if props == r.Symbol {
				r.StackFrame, r.SpillStores, r.SpillLoads = atoi64(m[1]), atoi64(m[2]), atoi64(m[3])
			}
			continue
		}
		if m := ptxasUsed.FindStringSubmatch(line); m != nil {
			r.Registers = int(atoi64(m[1]))
			if b := ptxasBars.FindStringSubmatch(line); b != nil {
				r.Barriers = int(atoi64(b[1]))
			}
			if s := ptxasSmem.FindStringSubmatch(line); s != nil {
				r.StaticShared = atoi64(s[1])
			}
		}
	}
	return rs
}

func atoi64(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

var ptxEntry = regexp.MustCompile(`^\.(?:visible|weak)?\s*\.entry\s+([A-Za-z_$][\w$]*)`)

// SplitPTX returns the PTX of each entry function of a module: from its
// ".globl" comment (when present) to the closing brace at column 0.
func SplitPTX(ptx string) map[string]string {
	out := map[string]string{}
	lines := strings.SplitAfter(ptx, "\n")
	for i := 0; i < len(lines); i++ {
		m := ptxEntry.FindStringSubmatch(strings.TrimSpace(lines[i]))
		if m == nil {
			continue
		}
		// The entry's ".globl" comment may stand a few comment lines
		// above it ("// ... has been demoted").
		start := i
		for j := i - 1; j >= 0; j-- {
			l := strings.TrimSpace(lines[j])
			if f := strings.Fields(l); len(f) == 3 && f[0] == "//" && f[1] == ".globl" && f[2] == m[1] {
				start = j
				break
			}
			if l != "" && !strings.HasPrefix(l, "//") {
				break
			}
		}
		end := i
		for end < len(lines) && strings.TrimRight(lines[end], "\r\n") != "}" {
			end++
		}
		if end < len(lines) {
			end++
		}
		out[m[1]] = strings.Join(lines[start:end], "")
		i = end - 1
	}
	return out
}

var (
	nvdisasmSection = regexp.MustCompile(`^//-+ \.text\.(\S+)\s+-+$`)
	otherSection    = regexp.MustCompile(`^//-+ \S+\s+-+$`)
	cuobjdumpFunc   = regexp.MustCompile(`^\s*Function : (\S+)$`)
	sassInstruction = regexp.MustCompile(`^\s*/\*[0-9a-f]{4,}\*/\s+(@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)`)
)

// SplitSASS returns the SASS of each function of a disassembly, by name:
// nvdisasm's ".text.NAME" sections, or cuobjdump -sass's "Function :
// NAME" blocks.
func SplitSASS(sass string) map[string]string {
	out := map[string]string{}
	name := ""
	var b strings.Builder
	flush := func() {
		if name != "" {
			out[name] = b.String()
		}
		name = ""
		b.Reset()
	}
	sc := bufio.NewScanner(strings.NewReader(sass))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := nvdisasmSection.FindStringSubmatch(line); m != nil {
			flush()
			name = m[1]
		} else if m := cuobjdumpFunc.FindStringSubmatch(line); m != nil {
			flush()
			name = m[1]
		} else if otherSection.MatchString(line) {
			flush()
		}
		if name != "" {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	flush()
	return out
}

// memoryOpcodes are the SASS instructions that move data through the
// load/store unit, TMA or the tensor-memory path, by base opcode (what
// precedes the first '.'). Constant-bank loads (LDC, ULDC), barriers
// (SYNCS.*, LDGDEPBAR) and address arithmetic are not memory traffic.
var memoryOpcodes = map[string]bool{
	"LD": true, "LDG": true, "LDS": true, "LDL": true, "LDSM": true, "LDGSTS": true,
	"ST": true, "STG": true, "STS": true, "STL": true, "STSM": true,
	"ATOM": true, "ATOMG": true, "ATOMS": true, "RED": true, "REDG": true, "REDAS": true,
	"UTMALDG": true, "UTMASTG": true, "UTMAREDG": true, "UTMAPF": true, "UTMACCTL": true,
	"UBLKCP": true, "UBLKRED": true, "UBLKPF": true,
	"LDTM": true, "STTM": true, "UTCCP": true,
}

// MemoryOps counts the memory instructions of a SASS text by their full
// opcode as printed (LDS.128, LDG.E.128.CONSTANT, LDSM.16.M88.4,
// UTMALDG.2D): static counts, each instruction of the code once however
// often it runs. An instruction predicated on @!PT (never true: ptxas
// pads with "@!PT LDS RZ, [RZ]") never runs and is not counted.
func MemoryOps(sass string) map[string]int {
	out := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(sass))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		m := sassInstruction.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		if strings.TrimSpace(m[1]) == "@!PT" {
			continue
		}
		op := m[2]
		base, _, _ := strings.Cut(op, ".")
		if memoryOpcodes[base] {
			out[op]++
		}
	}
	return out
}
