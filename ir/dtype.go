package ir

import (
	"fmt"
	"strings"
)

// TypeCode is the kind of a DataType.
type TypeCode uint8

const (
	TypeInvalid TypeCode = iota
	Int
	UInt
	Float
	BFloat
	Float8E4M3 // float8_e4m3fn
	Float8E5M2 // float8_e5m2
	Handle
	Bool
	Float8E8M0 // float8_e8m0fnu: an exponent-only scale factor (block-scaled MMA)
	Float4E2M1 // float4_e2m1fn: 4 bits, two per byte
)

// DataType is a scalar element type (lanes are not modelled).
type DataType struct {
	Code TypeCode
	Bits int
}

// Common types.
var (
	Int32   = DataType{Int, 32}
	Int64   = DataType{Int, 64}
	UInt32  = DataType{UInt, 32}
	Float16 = DataType{Float, 16}
	Float32 = DataType{Float, 32}
	BF16    = DataType{BFloat, 16}
	BoolT   = DataType{Bool, 1}
	HandleT = DataType{Handle, 64}
)

var dtypeNames = map[string]DataType{
	"int8": {Int, 8}, "int16": {Int, 16}, "int32": {Int, 32}, "int64": {Int, 64},
	"uint8": {UInt, 8}, "uint16": {UInt, 16}, "uint32": {UInt, 32}, "uint64": {UInt, 64},
	// 128-bit integers (TVM DataType("uint128")): the operand of a b128
	// PTX instruction, __uint128_t in CUDA
	"int128": {Int, 128}, "uint128": {UInt, 128},
	"float16": {Float, 16}, "float32": {Float, 32}, "float64": {Float, 64},
	"bfloat16": {BFloat, 16}, "float8_e4m3fn": {Float8E4M3, 8}, "float8_e5m2": {Float8E5M2, 8},
	"e4m3_float8": {Float8E4M3, 8}, "e5m2_float8": {Float8E5M2, 8},
	"bool": {Bool, 1}, "handle": {Handle, 64},
	"float8_e8m0fnu": {Float8E8M0, 8}, "float4_e2m1fn": {Float4E2M1, 4},
	// short aliases used by T.float32 etc. are resolved by the evaluator
}

// ParseDType parses a TVM dtype string ("float16", "int8", "bfloat16", ...).
func ParseDType(s string) (DataType, bool) {
	d, ok := dtypeNames[strings.TrimSpace(s)]
	return d, ok
}

// IsValid reports whether d is a real type.
func (d DataType) IsValid() bool { return d.Code != TypeInvalid }

// IsFloat reports float16/32/64, bfloat16 and the float8 kinds.
func (d DataType) IsFloat() bool {
	return d.Code == Float || d.Code == BFloat || d.Code == Float8E4M3 || d.Code == Float8E5M2 ||
		d.Code == Float8E8M0 || d.Code == Float4E2M1
}

// StorageBytes is the size in bytes of n elements of d: n*Bits/8 rounded
// up (two float4 elements share a byte; bool takes a byte).
func (d DataType) StorageBytes(n int64) int64 {
	if d.Bits < 8 && d.Code != Float4E2M1 {
		return n
	}
	return (n*int64(d.Bits) + 7) / 8
}

// Bytes is the size of one element in bytes (bool counts as 1).
func (d DataType) Bytes() int {
	if d.Bits < 8 {
		return 1
	}
	return d.Bits / 8
}

// String returns TVM's name for d.
func (d DataType) String() string {
	switch d.Code {
	case Int:
		return fmt.Sprintf("int%d", d.Bits)
	case UInt:
		return fmt.Sprintf("uint%d", d.Bits)
	case Float:
		return fmt.Sprintf("float%d", d.Bits)
	case BFloat:
		return "bfloat16"
	case Float8E4M3:
		return "float8_e4m3fn"
	case Float8E5M2:
		return "float8_e5m2"
	case Float8E8M0:
		return "float8_e8m0fnu"
	case Float4E2M1:
		return "float4_e2m1fn"
	case Handle:
		return "handle"
	case Bool:
		return "bool"
	}
	return "invalid"
}

// CType returns the CUDA C type name used for buffers of d.
func (d DataType) CType() string {
	switch d.Code {
	case Int:
		switch d.Bits {
		case 8:
			return "signed char"
		case 16:
			return "short"
		case 32:
			return "int"
		case 64:
			return "int64_t"
		case 128:
			return "__int128_t"
		}
	case UInt:
		switch d.Bits {
		case 8:
			return "unsigned char"
		case 16:
			return "unsigned short"
		case 32:
			return "unsigned int"
		case 64:
			return "uint64_t"
		case 128:
			return "__uint128_t"
		}
	case Float:
		switch d.Bits {
		case 16:
			return "half"
		case 32:
			return "float"
		case 64:
			return "double"
		}
	case BFloat:
		return "nv_bfloat16"
	case Float8E4M3:
		return "__nv_fp8_e4m3"
	case Float8E5M2:
		return "__nv_fp8_e5m2"
	case Float8E8M0:
		return "__nv_fp8_e8m0"
	case Float4E2M1:
		return "__nv_fp4_e2m1" // cuda_fp4.h (codegen/cuda includes it when used)
	case Bool:
		return "bool"
	case Handle:
		return "void*"
	}
	return "void"
}
