package gemmasync

import "testing"

// Expected values come from the reference's own encoders, run by
// testdata/ref_descriptors.py (the dense encoder in Python, the
// SmemDescriptor / InstrDescriptorBlockScaled C helpers compiled for the host).

func TestDenseInstrDescMatchesReference(t *testing.T) {
	cases := []struct {
		m, n         int64
		a, b         string
		transA, trnB bool
		want         uint32
	}{
		{128, 64, "float16", "float16", false, false, 0x08100010},
		{128, 256, "bfloat16", "bfloat16", false, true, 0x08410490},
		{64, 8, "float16", "float16", true, false, 0x04028010},
		{256, 128, "bfloat16", "bfloat16", true, true, 0x10218490},
		{128, 32, "float8_e4m3fn", "float8_e5m2", false, false, 0x08080410},
		{128, 16, "tf32", "tf32", false, false, 0x08040910},
	}
	for _, c := range cases {
		if got := denseInstrDesc(c.m, c.n, "float32", c.a, c.b, c.transA, c.trnB); got != c.want {
			t.Errorf("denseInstrDesc(%d, %d, %s, %s, %v, %v) = %#08x, want %#08x", c.m, c.n, c.a, c.b, c.transA, c.trnB, got, c.want)
		}
	}
}

func TestSmemDescMatchesReference(t *testing.T) {
	cases := []struct {
		addr          uint32
		ldo, sdo, swz int64
		want          uint64
	}{
		{0, 64, 64, 3, 0x4000404000400000},
		{1024, 1, 64, 3, 0x4000404000010040},
		{0x4400, 128, 32, 2, 0x8000402000800440},
		{16, 8, 16, 1, 0xc000401000080001},
		{262128, 512, 1024, 0, 0x0000440002003fff},
		{2048, 256, 8, 4, 0x2000400801000080},
	}
	for _, c := range cases {
		if got := smemDesc(c.addr, c.ldo, c.sdo, c.swz); got != c.want {
			t.Errorf("smemDesc(%d, %d, %d, %d) = %#016x, want %#016x", c.addr, c.ldo, c.sdo, c.swz, got, c.want)
		}
	}
}

func TestBlockScaledInstrDescMatchesReference(t *testing.T) {
	cases := []struct {
		m, n         int64
		a, b, s      uint32
		transA, trnB bool
		sfID         uint32
		want         uint32
	}{
		{128, 64, 0, 0, 1, false, false, 0, 0x08900000},
		{256, 256, 1, 0, 1, true, true, 0, 0x10c18080},
		{128, 128, 1, 1, 0, false, false, 3, 0x682004b0},
		{128, 8, 1, 1, 1, false, false, 2, 0x488204a0},
		{256, 16, 0, 1, 1, false, true, 1, 0x30850410},
	}
	for _, c := range cases {
		if got := blockScaledInstrDesc(c.m, c.n, c.a, c.b, c.s, c.transA, c.trnB, c.sfID); got != c.want {
			t.Errorf("blockScaledInstrDesc(%+v) = %#08x, want %#08x", c, got, c.want)
		}
	}
}

func TestBlockScaledFormats(t *testing.T) {
	for _, c := range []struct {
		kind, a, b, sf string
		wa, wb, ws     uint32
	}{
		{"mxf8f6f4", "float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu", 0, 1, 1},
		{"mxf4", "float4_e2m1fn", "float4_e2m1fn", "float8_e8m0fnu", 1, 1, 1},
		{"mxf4nvf4", "float4_e2m1fn", "float4_e2m1fn", "float8_e4m3fn", 1, 1, 0},
	} {
		a, b, s := blockScaledFormats(c.kind, c.a, c.b, c.sf)
		if a != c.wa || b != c.wb || s != c.ws {
			t.Errorf("blockScaledFormats(%s) = %d %d %d, want %d %d %d", c.kind, a, b, s, c.wa, c.wb, c.ws)
		}
	}
}

func TestDecodeSmemDesc(t *testing.T) {
	f := decodeSmemDesc(0x4000404000400000)
	want := map[string]string{
		"start_address [0,14)":        "0 (byte address 0)",
		"leading_byte_offset [16,30)": "64 (1024 bytes)",
		"stride_byte_offset [32,46)":  "64 (1024 bytes)",
		"version [46,48)":             "1",
		"layout_type [61,64)":         "2 (SWIZZLE_128B)",
	}
	got := map[string]string{}
	for _, x := range f {
		got[x.key] = x.value
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("field %s = %q, want %q", k, got[k], v)
		}
	}
}
