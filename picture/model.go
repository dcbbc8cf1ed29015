package picture

// Cell is one element of a drawn tile.
type Cell struct {
	// Thread is the owning thread, -1 when no thread of the call owns or
	// moves the element.
	Thread int
	// Owners counts the threads that own the element (a layout with
	// replicas gives one element to several threads); Thread is the
	// lowest of them.
	Owners int
	// Slot is the owner's register index (a layout's memory offset) for
	// a partition read from a layout, else the ordinal of the owner's
	// access (0, 1, ...: its iteration) that moves the element.
	Slot int
	// Lane is the element's position inside that access (vector lane);
	// 0 for a partition read from a layout.
	Lane int
}

// Partition is the tile of one call drawn as a grid: which thread owns
// each element of the region's 2-D view (the last non-unit dimension as
// columns, the others flattened into rows).
type Partition struct {
	// Title names the kernel, the call and the variant.
	Title string
	// Region is the region drawn ("S[0:32, 0:64]"); From says where the
	// owners come from ("layout S[(32,32):(1@laneid,1)]", "lowered code").
	Region, From string
	// Rows and Cols are the drawn grid; TotalRows and TotalCols the whole
	// 2-D view (larger when the picture is cropped).
	Rows, Cols           int
	TotalRows, TotalCols int64
	// Threads is the number of threads of the call.
	Threads int
	// Vec is the elements per access (1 for a layout's partition).
	Vec int
	// Cells holds Rows*Cols cells, row-major.
	Cells []Cell
	// Notes are facts a reader needs: flattened dimensions, cropping,
	// variables taken as 0, elements no thread owns.
	Notes []string
}

// At returns the cell at row r, column c.
func (p *Partition) At(r, c int) Cell { return p.Cells[r*p.Cols+c] }

// MaxCells bounds a drawn partition per side: a larger view is cropped
// to its top-left MaxCells x MaxCells corner and says so.
const MaxCells = 128

// BankAccess is one thread's part of a warp-level shared-memory
// instruction: Bytes bytes (1, 2, 4, 8 or 16) at byte address Addr,
// served in pass Pass (0, 1, ...) of the instruction.
type BankAccess struct {
	Thread int
	Addr   int64
	Bytes  int
	Pass   int
}

// Banks is the number of shared-memory banks; each is 4 bytes wide.
const Banks = 32

// BankCell is what one bank serves in one wavefront.
type BankCell struct {
	// Thread is the lowest thread whose access covers the word, -1 when
	// the bank is idle in this wavefront.
	Thread int
	// Word is the 4-byte word's address divided by 4.
	Word int64
	// Threads counts the threads that share the word (a broadcast).
	Threads int
	// Conflict marks a bank that serves several distinct words in this
	// phase: the reason for an extra wavefront.
	Conflict bool
}

// Wavefront is one pass of the shared-memory pipeline.
type Wavefront struct {
	// Phase is the pass it belongs to: the group of threads it serves
	// (the warp for a 32-bit access, a half warp for 64-bit, a quarter
	// warp for 128-bit, two adjacent groups of a load merged into one
	// pass, a matrix of an ldmatrix/stmatrix).
	Phase int
	Banks [Banks]BankCell
}

// BankMap is one warp-level shared instruction laid out bank by bank.
type BankMap struct {
	// Title names the kernel, the call and the instruction.
	Title string
	// Instr says which instruction: its kind, width and which of the
	// call's instructions it is.
	Instr string
	// Bytes is the access width per thread; Phases the number of passes
	// (thread groups served apart).
	Bytes, Phases int
	Accesses      []BankAccess
	Wavefronts    []Wavefront
	// Ideal is the wavefronts without bank conflicts (one per pass);
	// Conflicts = len(Wavefronts) - Ideal.
	Ideal, Conflicts int
	// Ways is the most distinct words one bank serves in one pass
	// (1: conflict-free; 32: a 32-way conflict).
	Ways  int
	Notes []string
}
