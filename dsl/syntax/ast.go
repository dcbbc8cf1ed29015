package syntax

import "github.com/tilels/tilels/dsl/source"

// Node is any syntax tree node. Span covers the node's full source text,
// in byte offsets into the whole file, half-open.
type Node interface {
	Span() source.Span
}

// Expr is an expression node.
type Expr interface {
	Node
	exprNode()
}

// Stmt is a statement node.
type Stmt interface {
	Node
	stmtNode()
}

// Pattern is a pattern of a match statement's case clause.
type Pattern interface {
	Node
	patternNode()
}

// File is a parsed source file. It is never nil, even for garbage input.
type File struct {
	Src      *source.File
	Body     []Stmt
	Comments []Comment // every comment, in source order
	// Seams are where an incremental reparse may start and stop
	// (ParseRegion): the start of the file, then every top-level statement
	// that starts a line at column 0. Nil when the parser collected so many
	// errors that it dropped some (which are reported then depends on the
	// whole file).
	Seams []Seam
}

// Span covers the whole source file.
func (f *File) Span() source.Span { return source.Span{Start: 0, End: source.Pos(len(f.Src.Src))} }

// Comment is one "#" comment. Text includes the leading "#" and excludes the
// line break. Comments are not part of the tree and Walk does not visit them.
type Comment struct {
	Span source.Span
	Text string
}

// ---------------------------------------------------------------------------
// Expressions

// ConstKind says what kind of literal a Constant is.
type ConstKind uint8

const (
	Int ConstKind = iota + 1
	Float
	Imag
	String
	Bytes
	True
	False
	None
	Ellipsis
)

var constKindNames = [...]string{"?", "int", "float", "imag", "str", "bytes", "True", "False", "None", "..."}

func (k ConstKind) String() string {
	if int(k) < len(constKindNames) {
		return constKindNames[k]
	}
	return "?"
}

type (
	// Name is an identifier. Id is the identifier as written (not NFKC-normalized).
	Name struct {
		Loc source.Span
		Id  string
	}

	// Constant is a literal. Value is the raw source text (for implicitly
	// concatenated strings, all the parts and the space between them). For
	// String and Bytes, Str holds the decoded value (escapes processed;
	// Bytes as a Go string of the raw bytes).
	Constant struct {
		Loc   source.Span
		Kind  ConstKind
		Value string
		Str   string
	}

	// JoinedStr is an f-string, or an implicit concatenation containing one.
	// Parts are *Constant (Kind String) and *FormattedValue, in order;
	// adjacent literal text is merged into one Constant.
	JoinedStr struct {
		Loc   source.Span
		Parts []Expr
	}

	// FormattedValue is one replacement field {Value!Conversion:FormatSpec}
	// of an f-string. Conversion is 0, 'r', 's' or 'a'. FormatSpec is nil when
	// absent. A "=" debugging specifier, as in f"{x=}", becomes a preceding
	// Constant part holding the text "x=" and, when neither conversion nor
	// format spec is given, Conversion 'r' (as CPython does); Debug is set.
	FormattedValue struct {
		Loc        source.Span
		Value      Expr
		Conversion byte
		FormatSpec *JoinedStr
		Debug      bool
	}

	// BinOp is X Op Y. Op is one of + - * / // % ** @ << >> & | ^.
	BinOp struct {
		Loc source.Span
		X   Expr
		Op  string
		Y   Expr
	}

	// UnaryOp is Op X. Op is one of - + ~ not.
	UnaryOp struct {
		Loc source.Span
		Op  string
		X   Expr
	}

	// BoolOp is Values[0] Op Values[1] Op ...; Op is "and" or "or".
	// A chain of the same operator is one BoolOp.
	BoolOp struct {
		Loc    source.Span
		Op     string
		Values []Expr
	}

	// Compare is Left Ops[0] Comparators[0] Ops[1] Comparators[1] ...
	// Ops are == != < <= > >= in "not in" is "is not".
	Compare struct {
		Loc         source.Span
		Left        Expr
		Ops         []string
		Comparators []Expr
	}

	// Call is Func(Args..., Keywords...). Args may contain *Starred (for *x);
	// a **x argument is a Keyword with a nil Name.
	Call struct {
		Loc      source.Span
		Func     Expr
		Args     []Expr
		Keywords []*Keyword
	}

	// Attribute is X.Attr.
	Attribute struct {
		Loc  source.Span
		X    Expr
		Attr *Name
	}

	// Subscript is X[Index]. A comma-separated index, or a starred one as
	// in X[*a], is a *Tuple (Parens false); a slice is a *Slice, possibly
	// inside that Tuple.
	Subscript struct {
		Loc   source.Span
		X     Expr
		Index Expr
	}

	// Slice is Lower:Upper:Step inside a subscript; absent parts are nil.
	Slice struct {
		Loc   source.Span
		Lower Expr
		Upper Expr
		Step  Expr
	}

	// Tuple is a tuple display. Parens reports whether the tuple is written in
	// parentheses, in which case Loc includes them.
	Tuple struct {
		Loc    source.Span
		Elts   []Expr
		Parens bool
	}

	// List is [Elts...].
	List struct {
		Loc  source.Span
		Elts []Expr
	}

	// Set is {Elts...} with at least one element.
	Set struct {
		Loc  source.Span
		Elts []Expr
	}

	// Dict is {Keys[i]: Values[i], ...}. A nil key means **Values[i].
	Dict struct {
		Loc    source.Span
		Keys   []Expr
		Values []Expr
	}

	// ListComp is [Elt for ...].
	ListComp struct {
		Loc        source.Span
		Elt        Expr
		Generators []*Comprehension
	}

	// SetComp is {Elt for ...}.
	SetComp struct {
		Loc        source.Span
		Elt        Expr
		Generators []*Comprehension
	}

	// GeneratorExp is (Elt for ...). As the sole argument of a call,
	// f(x for x in y), its Loc covers the call's parentheses (as in CPython).
	GeneratorExp struct {
		Loc        source.Span
		Elt        Expr
		Generators []*Comprehension
	}

	// DictComp is {Key: Value for ...}.
	DictComp struct {
		Loc        source.Span
		Key        Expr
		Value      Expr
		Generators []*Comprehension
	}

	// Lambda is lambda Params: Body. Params is never nil.
	Lambda struct {
		Loc    source.Span
		Params *Params
		Body   Expr
	}

	// IfExp is Body if Test else OrElse.
	IfExp struct {
		Loc    source.Span
		Test   Expr
		Body   Expr
		OrElse Expr
	}

	// Starred is *X (in calls, displays, assignment targets, subscripts).
	// **x is never a Starred: see Call, Dict.
	Starred struct {
		Loc source.Span
		X   Expr
	}

	// NamedExpr is Target := Value.
	NamedExpr struct {
		Loc    source.Span
		Target *Name
		Value  Expr
	}

	// Await is await X.
	Await struct {
		Loc source.Span
		X   Expr
	}

	// Yield is yield Value; Value is nil for a bare yield.
	Yield struct {
		Loc   source.Span
		Value Expr
	}

	// YieldFrom is yield from Value.
	YieldFrom struct {
		Loc   source.Span
		Value Expr
	}

	// BadExpr stands for a missing or malformed expression; it is empty and
	// sits at the token where an expression was expected.
	BadExpr struct {
		From, To source.Pos
	}
)

// Auxiliary nodes: parts of expressions and statements that are not
// expressions themselves.
type (
	// Keyword is Name=Value in a call or class definition; Name is nil for **Value.
	Keyword struct {
		Loc   source.Span
		Name  *Name
		Value Expr
	}

	// Comprehension is one "for Target in Iter if Ifs..." clause.
	Comprehension struct {
		Loc     source.Span
		Target  Expr
		Iter    Expr
		Ifs     []Expr
		IsAsync bool
	}

	// Params is a parameter list. For a def its Loc includes the parentheses;
	// for a lambda it covers the text between "lambda" and ":" (empty when
	// there are no parameters). Vararg and Kwarg are nil when absent. A bare
	// "*" separator leaves Vararg nil; "/" ends Posonly.
	Params struct {
		Loc     source.Span
		Posonly []*Param
		Args    []*Param
		Vararg  *Param
		Kwonly  []*Param
		Kwarg   *Param
	}

	// Param is one parameter. Annotation and Default are nil when absent.
	// The Loc of *args and **kwargs does not include the stars.
	Param struct {
		Loc        source.Span
		Name       *Name
		Annotation Expr
		Default    Expr
	}

	// TypeParam is one PEP 695 type parameter: T, T: Bound, *Ts or **P.
	TypeParam struct {
		Loc     source.Span
		Kind    TypeParamKind
		Name    *Name
		Bound   Expr // nil when absent; only for TypeVar
		Default Expr // PEP 696 default; nil when absent
	}

	// WithItem is Context as Vars; Vars is nil when absent.
	WithItem struct {
		Loc     source.Span
		Context Expr
		Vars    Expr
	}

	// ExceptHandler is "except Type as Name: Body". Type and Name are nil when absent.
	ExceptHandler struct {
		Loc  source.Span
		Type Expr
		Name *Name
		Body []Stmt
	}

	// Alias is one imported name: Name (dotted, or "*") as AsName.
	// AsName is nil when absent.
	Alias struct {
		Loc    source.Span
		Name   string
		AsName *Name
	}

	// MatchCase is "case Pattern if Guard: Body"; Guard is nil when absent.
	MatchCase struct {
		Loc     source.Span
		Pattern Pattern
		Guard   Expr
		Body    []Stmt
	}
)

// TypeParamKind is the kind of a TypeParam.
type TypeParamKind uint8

const (
	TypeVar      TypeParamKind = iota + 1 // T
	TypeVarTuple                          // *Ts
	ParamSpec                             // **P
)

// ---------------------------------------------------------------------------
// Statements

type (
	// ExprStmt is an expression used as a statement.
	ExprStmt struct {
		Loc source.Span
		X   Expr
	}

	// Assign is Targets[0] = Targets[1] = ... = Value.
	Assign struct {
		Loc     source.Span
		Targets []Expr
		Value   Expr
	}

	// AugAssign is Target Op= Value. Op is the binary operator without "="
	// ("+" for +=), as in BinOp.
	AugAssign struct {
		Loc    source.Span
		Target Expr
		Op     string
		Value  Expr
	}

	// AnnAssign is Target: Annotation = Value; Value is nil when absent.
	AnnAssign struct {
		Loc        source.Span
		Target     Expr
		Annotation Expr
		Value      Expr
	}

	// FunctionDef is a def or async def. Decorators hold the expressions after
	// "@"; Loc starts at the first decorator's "@" when there is one.
	// Returns is nil when absent. Params is never nil.
	FunctionDef struct {
		Loc        source.Span
		Decorators []Expr
		Name       *Name
		TypeParams []*TypeParam
		Params     *Params
		Returns    Expr
		Body       []Stmt
		IsAsync    bool
	}

	// ClassDef is a class definition; Loc starts like FunctionDef's.
	ClassDef struct {
		Loc        source.Span
		Decorators []Expr
		Name       *Name
		TypeParams []*TypeParam
		Bases      []Expr
		Keywords   []*Keyword
		Body       []Stmt
	}

	// Return is return Value; Value is nil when absent.
	Return struct {
		Loc   source.Span
		Value Expr
	}

	// Delete is del Targets...
	Delete struct {
		Loc     source.Span
		Targets []Expr
	}

	// If is "if Test: Body else: Else". An elif is a single *If in Else with
	// IsElif set; its Loc starts at "elif" and it shares the parent's end.
	If struct {
		Loc    source.Span
		Test   Expr
		Body   []Stmt
		Else   []Stmt
		IsElif bool
	}

	// For is "[async] for Target in Iter: Body else: Else".
	For struct {
		Loc     source.Span
		Target  Expr
		Iter    Expr
		Body    []Stmt
		Else    []Stmt
		IsAsync bool
	}

	// While is "while Test: Body else: Else".
	While struct {
		Loc  source.Span
		Test Expr
		Body []Stmt
		Else []Stmt
	}

	// With is "[async] with Items: Body".
	With struct {
		Loc     source.Span
		Items   []*WithItem
		Body    []Stmt
		IsAsync bool
	}

	// Try is try/except/else/finally; Star is set for except*.
	Try struct {
		Loc      source.Span
		Body     []Stmt
		Handlers []*ExceptHandler
		Else     []Stmt
		Finally  []Stmt
		Star     bool
	}

	// Raise is raise Exc from Cause; both nil for a bare raise.
	Raise struct {
		Loc   source.Span
		Exc   Expr
		Cause Expr
	}

	// Assert is assert Test, Msg; Msg is nil when absent.
	Assert struct {
		Loc  source.Span
		Test Expr
		Msg  Expr
	}

	// Import is import Names...
	Import struct {
		Loc   source.Span
		Names []*Alias
	}

	// ImportFrom is "from <Level dots>Module import Names". Module is the
	// dotted name without the leading dots ("" for "from . import x");
	// "from m import *" has one Alias named "*".
	ImportFrom struct {
		Loc    source.Span
		Module string
		Level  int
		Names  []*Alias
	}

	// Global is global Names...
	Global struct {
		Loc   source.Span
		Names []*Name
	}

	// Nonlocal is nonlocal Names...
	Nonlocal struct {
		Loc   source.Span
		Names []*Name
	}

	// Pass is pass.
	Pass struct{ Loc source.Span }

	// Break is break.
	Break struct{ Loc source.Span }

	// Continue is continue.
	Continue struct{ Loc source.Span }

	// Match is "match Subject:" with its case clauses.
	Match struct {
		Loc     source.Span
		Subject Expr
		Cases   []*MatchCase
	}

	// TypeAlias is "type Name[TypeParams] = Value".
	TypeAlias struct {
		Loc        source.Span
		Name       *Name
		TypeParams []*TypeParam
		Value      Expr
	}

	// BadStmt stands for source skipped after a syntax error, in [From, To).
	BadStmt struct {
		From, To source.Pos
	}
)

// ---------------------------------------------------------------------------
// Patterns

type (
	// MatchValue matches a value pattern: a literal, a signed or complex
	// number, or a dotted name (Value is *Constant, *UnaryOp, *BinOp or *Attribute).
	MatchValue struct {
		Loc   source.Span
		Value Expr
	}

	// MatchSingleton matches None, True or False.
	MatchSingleton struct {
		Loc   source.Span
		Value *Constant
	}

	// MatchSequence is [p, ...] or (p, ...) or an open sequence p, q.
	MatchSequence struct {
		Loc      source.Span
		Patterns []Pattern
	}

	// MatchMapping is {Keys[i]: Patterns[i], **Rest}; Rest is nil when absent.
	MatchMapping struct {
		Loc      source.Span
		Keys     []Expr
		Patterns []Pattern
		Rest     *Name
	}

	// MatchClass is Cls(Patterns..., KwdAttrs[i]=KwdPatterns[i]...).
	MatchClass struct {
		Loc         source.Span
		Cls         Expr
		Patterns    []Pattern
		KwdAttrs    []*Name
		KwdPatterns []Pattern
	}

	// MatchStar is *Name in a sequence pattern; Name is nil for *_.
	MatchStar struct {
		Loc  source.Span
		Name *Name
	}

	// MatchAs is "Pattern as Name", a capture pattern (Pattern nil), or the
	// wildcard _ (both nil).
	MatchAs struct {
		Loc     source.Span
		Pattern Pattern
		Name    *Name
	}

	// MatchOr is p | q | ...
	MatchOr struct {
		Loc      source.Span
		Patterns []Pattern
	}
)

// ---------------------------------------------------------------------------
// Span methods

func (n *Name) Span() source.Span           { return n.Loc }
func (n *Constant) Span() source.Span       { return n.Loc }
func (n *JoinedStr) Span() source.Span      { return n.Loc }
func (n *FormattedValue) Span() source.Span { return n.Loc }
func (n *BinOp) Span() source.Span          { return n.Loc }
func (n *UnaryOp) Span() source.Span        { return n.Loc }
func (n *BoolOp) Span() source.Span         { return n.Loc }
func (n *Compare) Span() source.Span        { return n.Loc }
func (n *Call) Span() source.Span           { return n.Loc }
func (n *Attribute) Span() source.Span      { return n.Loc }
func (n *Subscript) Span() source.Span      { return n.Loc }
func (n *Slice) Span() source.Span          { return n.Loc }
func (n *Tuple) Span() source.Span          { return n.Loc }
func (n *List) Span() source.Span           { return n.Loc }
func (n *Set) Span() source.Span            { return n.Loc }
func (n *Dict) Span() source.Span           { return n.Loc }
func (n *ListComp) Span() source.Span       { return n.Loc }
func (n *SetComp) Span() source.Span        { return n.Loc }
func (n *GeneratorExp) Span() source.Span   { return n.Loc }
func (n *DictComp) Span() source.Span       { return n.Loc }
func (n *Lambda) Span() source.Span         { return n.Loc }
func (n *IfExp) Span() source.Span          { return n.Loc }
func (n *Starred) Span() source.Span        { return n.Loc }
func (n *NamedExpr) Span() source.Span      { return n.Loc }
func (n *Await) Span() source.Span          { return n.Loc }
func (n *Yield) Span() source.Span          { return n.Loc }
func (n *YieldFrom) Span() source.Span      { return n.Loc }
func (n *BadExpr) Span() source.Span        { return source.Span{Start: n.From, End: n.To} }

func (n *Keyword) Span() source.Span       { return n.Loc }
func (n *Comprehension) Span() source.Span { return n.Loc }
func (n *Params) Span() source.Span        { return n.Loc }
func (n *Param) Span() source.Span         { return n.Loc }
func (n *TypeParam) Span() source.Span     { return n.Loc }
func (n *WithItem) Span() source.Span      { return n.Loc }
func (n *ExceptHandler) Span() source.Span { return n.Loc }
func (n *Alias) Span() source.Span         { return n.Loc }
func (n *MatchCase) Span() source.Span     { return n.Loc }

func (n *ExprStmt) Span() source.Span    { return n.Loc }
func (n *Assign) Span() source.Span      { return n.Loc }
func (n *AugAssign) Span() source.Span   { return n.Loc }
func (n *AnnAssign) Span() source.Span   { return n.Loc }
func (n *FunctionDef) Span() source.Span { return n.Loc }
func (n *ClassDef) Span() source.Span    { return n.Loc }
func (n *Return) Span() source.Span      { return n.Loc }
func (n *Delete) Span() source.Span      { return n.Loc }
func (n *If) Span() source.Span          { return n.Loc }
func (n *For) Span() source.Span         { return n.Loc }
func (n *While) Span() source.Span       { return n.Loc }
func (n *With) Span() source.Span        { return n.Loc }
func (n *Try) Span() source.Span         { return n.Loc }
func (n *Raise) Span() source.Span       { return n.Loc }
func (n *Assert) Span() source.Span      { return n.Loc }
func (n *Import) Span() source.Span      { return n.Loc }
func (n *ImportFrom) Span() source.Span  { return n.Loc }
func (n *Global) Span() source.Span      { return n.Loc }
func (n *Nonlocal) Span() source.Span    { return n.Loc }
func (n *Pass) Span() source.Span        { return n.Loc }
func (n *Break) Span() source.Span       { return n.Loc }
func (n *Continue) Span() source.Span    { return n.Loc }
func (n *Match) Span() source.Span       { return n.Loc }
func (n *TypeAlias) Span() source.Span   { return n.Loc }
func (n *BadStmt) Span() source.Span     { return source.Span{Start: n.From, End: n.To} }

func (n *MatchValue) Span() source.Span     { return n.Loc }
func (n *MatchSingleton) Span() source.Span { return n.Loc }
func (n *MatchSequence) Span() source.Span  { return n.Loc }
func (n *MatchMapping) Span() source.Span   { return n.Loc }
func (n *MatchClass) Span() source.Span     { return n.Loc }
func (n *MatchStar) Span() source.Span      { return n.Loc }
func (n *MatchAs) Span() source.Span        { return n.Loc }
func (n *MatchOr) Span() source.Span        { return n.Loc }

// ---------------------------------------------------------------------------
// Marker methods

func (*Name) exprNode()           {}
func (*Constant) exprNode()       {}
func (*JoinedStr) exprNode()      {}
func (*FormattedValue) exprNode() {}
func (*BinOp) exprNode()          {}
func (*UnaryOp) exprNode()        {}
func (*BoolOp) exprNode()         {}
func (*Compare) exprNode()        {}
func (*Call) exprNode()           {}
func (*Attribute) exprNode()      {}
func (*Subscript) exprNode()      {}
func (*Slice) exprNode()          {}
func (*Tuple) exprNode()          {}
func (*List) exprNode()           {}
func (*Set) exprNode()            {}
func (*Dict) exprNode()           {}
func (*ListComp) exprNode()       {}
func (*SetComp) exprNode()        {}
func (*GeneratorExp) exprNode()   {}
func (*DictComp) exprNode()       {}
func (*Lambda) exprNode()         {}
func (*IfExp) exprNode()          {}
func (*Starred) exprNode()        {}
func (*NamedExpr) exprNode()      {}
func (*Await) exprNode()          {}
func (*Yield) exprNode()          {}
func (*YieldFrom) exprNode()      {}
func (*BadExpr) exprNode()        {}

func (*ExprStmt) stmtNode()    {}
func (*Assign) stmtNode()      {}
func (*AugAssign) stmtNode()   {}
func (*AnnAssign) stmtNode()   {}
func (*FunctionDef) stmtNode() {}
func (*ClassDef) stmtNode()    {}
func (*Return) stmtNode()      {}
func (*Delete) stmtNode()      {}
func (*If) stmtNode()          {}
func (*For) stmtNode()         {}
func (*While) stmtNode()       {}
func (*With) stmtNode()        {}
func (*Try) stmtNode()         {}
func (*Raise) stmtNode()       {}
func (*Assert) stmtNode()      {}
func (*Import) stmtNode()      {}
func (*ImportFrom) stmtNode()  {}
func (*Global) stmtNode()      {}
func (*Nonlocal) stmtNode()    {}
func (*Pass) stmtNode()        {}
func (*Break) stmtNode()       {}
func (*Continue) stmtNode()    {}
func (*Match) stmtNode()       {}
func (*TypeAlias) stmtNode()   {}
func (*BadStmt) stmtNode()     {}

func (*MatchValue) patternNode()     {}
func (*MatchSingleton) patternNode() {}
func (*MatchSequence) patternNode()  {}
func (*MatchMapping) patternNode()   {}
func (*MatchClass) patternNode()     {}
func (*MatchStar) patternNode()      {}
func (*MatchAs) patternNode()        {}
func (*MatchOr) patternNode()        {}
