package syntax

import "github.com/tilels/tilels/dsl/source"

// tokKind is the kind of a token.
type tokKind uint8

const (
	tEOF tokKind = iota
	tNewline
	tIndent
	tDedent
	tName
	tInt
	tFloat
	tImag
	tString  // a complete non-f string literal
	tFStart  // f-string prefix and opening quote
	tFMiddle // literal text inside an f-string or a format spec
	tFEnd    // f-string closing quote
	tError   // a character the lexer could not use (already reported)

	tLParen
	tRParen
	tLBrack
	tRBrack
	tLBrace
	tRBrace
	tComma
	tColon
	tSemi
	tDot
	tEllipsis
	tAssign
	tArrow
	tWalrus
	tBang

	// Binary operators, in the order of binOpStr.
	tPlus
	tMinus
	tStar
	tSlash
	tDSlash
	tPercent
	tDStar
	tAt
	tShl
	tShr
	tAmp
	tPipe
	tCaret

	// Augmented assignments, in the same order as the binary operators.
	tPlusEq
	tMinusEq
	tStarEq
	tSlashEq
	tDSlashEq
	tPercentEq
	tDStarEq
	tAtEq
	tShlEq
	tShrEq
	tAmpEq
	tPipeEq
	tCaretEq

	tTilde
	tLt
	tGt
	tLe
	tGe
	tEq
	tNe

	// Keywords (hard keywords only; match, case, type and _ are names).
	kFalse
	kNone
	kTrue
	kAnd
	kAs
	kAssert
	kAsync
	kAwait
	kBreak
	kClass
	kContinue
	kDef
	kDel
	kElif
	kElse
	kExcept
	kFinally
	kFor
	kFrom
	kGlobal
	kIf
	kImport
	kIn
	kIs
	kLambda
	kNonlocal
	kNot
	kOr
	kPass
	kRaise
	kReturn
	kTry
	kWhile
	kWith
	kYield

	numTokKinds
)

// Token flags.
const (
	tfErr uint8 = 1 << iota // the lexer reported an error at this token
)

// token is one lexical token. Its text is src[pos:end].
type token struct {
	kind  tokKind
	flags uint8
	pos   source.Pos
	end   source.Pos
}

var binOpStr = [...]string{"+", "-", "*", "/", "//", "%", "**", "@", "<<", ">>", "&", "|", "^"}

var tokStr = [numTokKinds]string{
	tEOF: "end of file", tNewline: "newline", tIndent: "indent", tDedent: "dedent",
	tName: "name", tInt: "number", tFloat: "number", tImag: "number", tString: "string",
	tFStart: "f-string", tFMiddle: "f-string text", tFEnd: "end of f-string", tError: "invalid character",
	tLParen: "(", tRParen: ")", tLBrack: "[", tRBrack: "]", tLBrace: "{", tRBrace: "}",
	tComma: ",", tColon: ":", tSemi: ";", tDot: ".", tEllipsis: "...", tAssign: "=",
	tArrow: "->", tWalrus: ":=", tBang: "!",
	tPlus: "+", tMinus: "-", tStar: "*", tSlash: "/", tDSlash: "//", tPercent: "%",
	tDStar: "**", tAt: "@", tShl: "<<", tShr: ">>", tAmp: "&", tPipe: "|", tCaret: "^",
	tPlusEq: "+=", tMinusEq: "-=", tStarEq: "*=", tSlashEq: "/=", tDSlashEq: "//=",
	tPercentEq: "%=", tDStarEq: "**=", tAtEq: "@=", tShlEq: "<<=", tShrEq: ">>=",
	tAmpEq: "&=", tPipeEq: "|=", tCaretEq: "^=",
	tTilde: "~", tLt: "<", tGt: ">", tLe: "<=", tGe: ">=", tEq: "==", tNe: "!=",
	kFalse: "False", kNone: "None", kTrue: "True", kAnd: "and", kAs: "as", kAssert: "assert",
	kAsync: "async", kAwait: "await", kBreak: "break", kClass: "class", kContinue: "continue",
	kDef: "def", kDel: "del", kElif: "elif", kElse: "else", kExcept: "except",
	kFinally: "finally", kFor: "for", kFrom: "from", kGlobal: "global", kIf: "if",
	kImport: "import", kIn: "in", kIs: "is", kLambda: "lambda", kNonlocal: "nonlocal",
	kNot: "not", kOr: "or", kPass: "pass", kRaise: "raise", kReturn: "return", kTry: "try",
	kWhile: "while", kWith: "with", kYield: "yield",
}

func (k tokKind) String() string { return tokStr[k] }

func (k tokKind) isKeyword() bool { return k >= kFalse && k <= kYield }

// keyword returns the keyword kind of an identifier, or tName. (A switch
// on string(s) does not allocate.)
func keyword(s []byte) tokKind {
	if len(s) < 2 || len(s) > 8 || s[0] < 'F' || s[0] > 'y' {
		return tName
	}
	switch string(s) {
	case "False":
		return kFalse
	case "None":
		return kNone
	case "True":
		return kTrue
	case "and":
		return kAnd
	case "as":
		return kAs
	case "assert":
		return kAssert
	case "async":
		return kAsync
	case "await":
		return kAwait
	case "break":
		return kBreak
	case "class":
		return kClass
	case "continue":
		return kContinue
	case "def":
		return kDef
	case "del":
		return kDel
	case "elif":
		return kElif
	case "else":
		return kElse
	case "except":
		return kExcept
	case "finally":
		return kFinally
	case "for":
		return kFor
	case "from":
		return kFrom
	case "global":
		return kGlobal
	case "if":
		return kIf
	case "import":
		return kImport
	case "in":
		return kIn
	case "is":
		return kIs
	case "lambda":
		return kLambda
	case "nonlocal":
		return kNonlocal
	case "not":
		return kNot
	case "or":
		return kOr
	case "pass":
		return kPass
	case "raise":
		return kRaise
	case "return":
		return kReturn
	case "try":
		return kTry
	case "while":
		return kWhile
	case "with":
		return kWith
	case "yield":
		return kYield
	}
	return tName
}
