package harness

// refPrelude is the host reference's runtime: plain C++17 with no CUDA
// header, so the reference neither shares code with the kernels nor with
// CUDA's own conversion routines (the reference is an independent oracle),
// and tests compile it with the host compiler alone (refTestMain).
//
// Model (see ref.go): memory is bytes; a buffer is a base pointer, a dtype,
// a logical shape and a layout that maps a logical element to (thread,
// storage element); values in flight are doubles, rounded to the IR type of
// every operation that produces them (tl_round).
const refPrelude = `// ---- host reference (tilels --harness) ----
// Each kernel's semantics, executed on the host: tile calls as whole-tile
// operations on logical coordinates, everything else SIMT-style, one CTA
// at a time, every thread of the CTA in lockstep under an activity mask.
#if defined(__NVCC__)
// The lockstep model declares per-thread arrays some kernels never read.
#pragma nv_diag_suppress 550
#endif
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <array>
#include <initializer_list>
#include <unordered_map>
#include <vector>

namespace tilels_ref {

enum DType { TL_I8, TL_I16, TL_I32, TL_I64, TL_U8, TL_U16, TL_U32, TL_U64, TL_F16, TL_BF16, TL_F32, TL_F64,
             TL_E4M3, TL_E5M2, TL_BOOL, TL_B128 };  // TL_B128: 16 raw bytes (uint128 views), moved, never computed

// Layout axes: the memory axis m and the thread axes of spec §2.1.
enum { AX_M, AX_LANE, AX_WARP, AX_WG, AX_TIDWG, AX_WIDWG, AX_TX, AX_N };

struct Layout {
  int n;  // shard iters
  long long ext[24], stride[24];
  int axis[24];
  int nr;  // replica iters
  long long rext[8], rstride[8];
  int raxis[8];
  long long off[AX_N];
  int has[AX_N];  // the axis occurs in the shard, the replicas or the offsets
  int threaded;   // some thread axis occurs
  int swizzle, p, sw, at, inner;  // ComposeLayout (swizzle == 1)
};

// Buf is one buffer as the reference sees it. Element e of thread t lives at
// data + t * tstride + (eoff + m) * esize, where m is its storage element.
struct Buf {
  const char* name;
  unsigned char* data;
  long long tstride;
  DType dt;
  int esize;
  int rank;
  long long shape[8];
  const Layout* L;  // nullptr: row-major over shape
  long long eoff;
  int global;
  // Shadow state, one entry per storage byte (nullptr where not kept):
  // def is 1 where the byte holds a value the program computed (inputs
  // are defined; shared and register storage starts undefined); for shared
  // storage, ep/who/site are the barrier epoch, actor and call site of the
  // last write (the data-race check).
  long long bytes;
  unsigned char* def;
  int* ep;
  int* who;
  int* site;
};

// The race check's clock: tl_epoch grows at every barrier (and after an
// elementwise call on shared memory, which ends with one); tl_actor is the
// thread (>= 0) or the collective call instance (< 0) accessing memory;
// tl_site indexes tl_sites, the call site of the statement running.
inline int tl_epoch = 1;
inline int tl_actor = 0;
inline int tl_seq = 0;
inline int tl_site = 0;
inline const char* const* tl_sites = nullptr;
inline char tl_race[512] = "";

struct Region {
  const Buf* b;
  int rank;
  long long mn[8], ext[8];
};

// tl_wrap is x wrapped to an integer of bits bits (signed or not), as
// the GPU's fixed-width arithmetic leaves it.
inline long long tl_wrap(long long x, int bits, int sgn) {
  unsigned long long m = (1ull << bits) - 1, u = (unsigned long long)x & m;
  if (sgn && (u >> (bits - 1))) return (long long)(u | ~m);
  return (long long)u;
}

inline long long tl_floordiv(long long a, long long b) {
  long long q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

inline long long tl_floormod(long long a, long long b) {
  long long m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}

// tl_place maps logical element f (row-major over the buffer's shape) to
// its coordinate on every axis: the flat index split over the shard
// extents, last fastest, the first digit unreduced (spec §2.4); replica
// digit r (mixed radix over the replica extents) added; the ComposeLayout
// swizzle applied to m (spec §2.9).
inline void tl_place(const Layout* L, long long f, long long r, long long ax[AX_N]) {
  for (int a = 0; a < AX_N; a++) ax[a] = L->off[a];
  for (int i = L->n - 1; i >= 0; i--) {
    long long d = i == 0 ? f : tl_floormod(f, L->ext[i]);
    if (i) f = tl_floordiv(f, L->ext[i]);
    ax[L->axis[i]] += d * L->stride[i];
  }
  for (int i = L->nr - 1; i >= 0; i--) {
    ax[L->raxis[i]] += (r % L->rext[i]) * L->rstride[i];
    r /= L->rext[i];
  }
  if (L->swizzle) {
    long long m = ax[AX_M], base = 1LL << L->p, q = tl_floordiv(m, base);
    long long mask = (1LL << L->sw) - 1;
    if (L->inner) q ^= (q & (mask << L->at)) >> L->at;
    else q ^= (q & mask) << L->at;
    ax[AX_M] = q * base + tl_floormod(m, base);
  }
}

inline long long tl_replicas(const Layout* L) {
  long long n = 1;
  for (int i = 0; i < L->nr; i++) n *= L->rext[i];
  return n;
}

// tl_thread is the thread of the CTA that holds an element placed at ax:
// the thread axes the layout names decide their part of the thread index,
// the calling group's leader the rest (a warp-scope fragment over laneid
// lives in the warp that runs the call).
inline int tl_thread(const Layout* L, const long long ax[AX_N], int leader) {
  if (!L || !L->threaded) return leader;
  if (L->has[AX_TX]) return (int)ax[AX_TX];
  long long lane = leader % 32, warp = leader / 32;
  if (L->has[AX_TIDWG]) {
    lane = ax[AX_TIDWG] % 32;
    warp = (warp / 4) * 4 + ax[AX_TIDWG] / 32;
  }
  if (L->has[AX_LANE]) lane = ax[AX_LANE];
  if (L->has[AX_WIDWG]) warp = (warp / 4) * 4 + ax[AX_WIDWG];
  if (L->has[AX_WG]) warp = ax[AX_WG] * 4 + warp % 4;
  if (L->has[AX_WARP]) warp = ax[AX_WARP];
  return (int)(warp * 32 + lane);
}

inline long long tl_flat(const Buf& b, const long long* idx) {
  long long f = 0;
  for (int d = 0; d < b.rank; d++) f = f * b.shape[d] + idx[d];
  return f;
}

[[noreturn]] inline void tl_die(const char* what, const char* name) {
  fprintf(stderr, "tilels harness: reference: %s (%s)\n", what, name);
  exit(3);
}

// tl_addr is the address of replica r of element idx of b, as seen by the
// group whose leader is leader; nthreads bounds the thread index.
inline unsigned char* tl_addr(const Buf& b, const long long* idx, long long r, int leader, int nthreads) {
  long long f = tl_flat(b, idx), m = f;
  int t = leader;
  if (b.L) {
    long long ax[AX_N];
    tl_place(b.L, f, r, ax);
    m = ax[AX_M];
    t = tl_thread(b.L, ax, leader);
  }
  if (b.tstride == 0) t = 0;
  if (t < 0 || t >= nthreads) tl_die("an element maps to a thread outside the CTA", b.name);
  long long off = t * b.tstride + (b.eoff + m) * b.esize;
  if (off < 0 || off + b.esize > b.bytes) tl_die("an access falls outside the buffer's storage", b.name);
  return b.data + off;
}

// tl_actor_name describes an actor for a race report.
inline void tl_actor_name(int who, char* out, size_t n) {
  if (who >= 0) snprintf(out, n, "thread %d", who);
  else snprintf(out, n, "a tile call");
}

// tl_check records the first data race on shared memory: an access to a
// byte that another actor wrote since the last barrier. A write (nv: the
// bytes about to be stored) that stores the value already there is not
// reported: several warps filling a tile with the same data is common
// and harmless.
inline void tl_check(const Buf& b, const unsigned char* p, const unsigned char* nv) {
  if (!b.ep) return;
  long long o = p - b.data;
  for (int i = 0; i < b.esize; i++) {
    if (b.ep[o + i] == tl_epoch && b.who[o + i] != tl_actor && !tl_race[0] && !(nv && memcmp(p, nv, b.esize) == 0)) {
      char w[32], a[32];
      tl_actor_name(b.who[o + i], w, sizeof w);
      tl_actor_name(tl_actor, a, sizeof a);
      snprintf(tl_race, sizeof tl_race, "%s (shared byte %lld) is written by %s at %s and %s by %s at %s with no barrier between",
               b.name, o + i, w, tl_sites[b.site[o + i]], nv ? "written" : "read", a, tl_sites[tl_site]);
    }
    if (nv) {
      b.ep[o + i] = tl_epoch;
      b.who[o + i] = tl_actor;
      b.site[o + i] = tl_site;
    }
  }
}

// tl_defined reports whether every byte at p holds a computed value. A
// def byte of 2 marks an element that holds one of two values (tl_alts):
// not defined for computing with it.
inline int tl_defined(const Buf& b, const unsigned char* p) {
  if (!b.def) return 1;
  const unsigned char* d = b.def + (p - b.data);
  for (int i = 0; i < b.esize; i++)
    if (d[i] != 1) return 0;
  return 1;
}

// tl_alts holds, by host address, the other value an element may hold
// (def bytes 2): a copy under a per-thread predicate writes each element
// from one thread, whose predicate the reference does not place, so the
// element is the source's value or the one the predicate leaves (zero,
// or what was there). Comparisons accept either; copies carry both; any
// other use makes it undefined.
inline std::unordered_map<const unsigned char*, std::array<unsigned char, 16>> tl_alts;

// tl_either reports whether the element at p holds one of two values
// (every byte defined, some of them so).
inline int tl_either(const Buf& b, const unsigned char* p) {
  if (!b.def) return 0;
  const unsigned char* d = b.def + (p - b.data);
  int two = 0;
  for (int i = 0; i < b.esize; i++) {
    if (d[i] == 0) return 0;
    if (d[i] == 2) two = 1;
  }
  return two;
}

inline void tl_set_defined(const Buf& b, unsigned char* p, int v) {
  if (b.def) memset(b.def + (p - b.data), v, b.esize);
}

// tl_raw is the address off bytes into b's data for thread t (a byte
// offset from a buffer's data pointer), which must hold n bytes.
inline unsigned char* tl_raw(const Buf& b, long long off, int t, long long n) {
  long long o = (b.tstride ? t * b.tstride : 0) + off;
  if (o < 0 || o + n > b.bytes) tl_die("an access falls outside the buffer's storage", b.name);
  return b.data + o;
}

// tl_span checks that n bytes from p lie in b's storage.
inline unsigned char* tl_span(const Buf& b, unsigned char* p, long long n) {
  long long o = p - b.data;
  if (o < 0 || o + n > b.bytes) tl_die("an access falls outside the buffer's storage", b.name);
  return p;
}

// tl_mov moves n raw bytes from s (in sb) to d (in db), as a kernel's own
// ld/st does: race-checked on shared storage, the destination defined
// where the source was.
inline void tl_mov(const Buf& db, unsigned char* d, const Buf& sb, unsigned char* s, int n) {
  int def = 1;
  for (int i = 0; i < n; i += sb.esize) {
    tl_check(sb, s + i, nullptr);
    if (!tl_defined(sb, s + i)) def = 0;
  }
  for (int i = 0; i < n; i += db.esize) tl_check(db, d + i, s + i);
  if (n > 0) memmove(d, s, (size_t)n);
  for (int i = 0; i < n; i += db.esize) tl_set_defined(db, d + i, def);
}

// tl_mov_n is tl_mov for n bytes that need not be whole elements of
// either buffer (a 16-bit half of a 32-bit register: ldmatrix,
// stmatrix), race-checked and defined byte by byte.
inline void tl_mov_n(const Buf& db, unsigned char* d, const Buf& sb, const unsigned char* s, int n) {
  int def = 1;
  for (int i = 0; i < n; i++) {
    long long o = s - sb.data + i;
    if (o < 0 || o >= sb.bytes || d - db.data + i < 0 || d - db.data + i >= db.bytes) tl_die("an access falls outside the buffer's storage", o < 0 || o >= sb.bytes ? sb.name : db.name);
    if (sb.def && sb.def[o] != 1) def = 0;
    if (sb.ep && sb.ep[o] == tl_epoch && sb.who[o] != tl_actor && !tl_race[0]) {
      char w[32], a[32];
      tl_actor_name(sb.who[o], w, sizeof w);
      tl_actor_name(tl_actor, a, sizeof a);
      snprintf(tl_race, sizeof tl_race, "%s (shared byte %lld) is written by %s at %s and read by %s at %s with no barrier between",
               sb.name, o, w, tl_sites[sb.site[o]], a, tl_sites[tl_site]);
    }
  }
  for (int i = 0; i < n; i++) {
    long long o = d - db.data + i;
    if (db.ep && db.ep[o] == tl_epoch && db.who[o] != tl_actor && !tl_race[0] && d[i] != s[i]) {
      char w[32], a[32];
      tl_actor_name(db.who[o], w, sizeof w);
      tl_actor_name(tl_actor, a, sizeof a);
      snprintf(tl_race, sizeof tl_race, "%s (shared byte %lld) is written by %s at %s and written by %s at %s with no barrier between",
               db.name, o, w, tl_sites[db.site[o]], a, tl_sites[tl_site]);
    }
    if (db.ep) {
      db.ep[o] = tl_epoch;
      db.who[o] = tl_actor;
      db.site[o] = tl_site;
    }
  }
  memmove(d, s, (size_t)n);
  if (db.def) memset(db.def + (d - db.data), def, (size_t)n);
}

// tl_at is tl_addr for a direct access b[idx...] by thread t.
inline unsigned char* tl_at(const Buf& b, std::initializer_list<long long> il, int t, int nt) {
  long long idx[8];
  int d = 0;
  for (long long v : il) idx[d++] = v;
  return tl_addr(b, idx, 0, t, nt);
}

inline int tl_inside(const Buf& b, const long long* idx) {
  for (int d = 0; d < b.rank; d++)
    if (idx[d] < 0 || idx[d] >= b.shape[d]) return 0;
  return 1;
}

// ---- element values ----

inline float tl_bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
inline uint32_t tl_f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

// tl_f32_to_f16 rounds to nearest even (IEEE binary16, with subnormals).
inline uint16_t tl_f32_to_f16(float f) {
  uint32_t x = tl_f32_bits(f);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
  uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) return sign | (ax > 0x7f800000u ? 0x7e00 : 0x7c00);
  if (ax >= 0x477ff000u) return sign | 0x7c00;  // rounds to infinity
  if (ax < 0x38800000u) {  // below 2^-14: subnormal or zero
    if (ax < 0x33000000u) return sign;  // below half the smallest subnormal
    uint32_t e = ax >> 23, mant = (ax & 0x7fffff) | 0x800000;
    int shift = 126 - (int)e;  // 0x38800000 is 2^-14: exponent 113
    uint32_t q = mant >> (shift), rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1))) q++;
    return sign | (uint16_t)q;
  }
  uint32_t e = (ax >> 23) - 112, mant = ax & 0x7fffff;
  uint32_t q = (e << 10) | (mant >> 13), rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (q & 1))) q++;
  return sign | (uint16_t)q;
}

inline float tl_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, mant = h & 0x3ff;
  if (e == 0x1f) return tl_bits_f32(sign | 0x7f800000u | (mant << 13));
  if (e == 0) {
    if (mant == 0) return tl_bits_f32(sign);
    float v = (float)mant * (1.0f / 16777216.0f);  // mant * 2^-24
    return sign ? -v : v;
  }
  return tl_bits_f32(sign | ((e + 112) << 23) | (mant << 13));
}

inline uint16_t tl_f32_to_bf16(float f) {
  uint32_t x = tl_f32_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40);
  uint32_t rem = x & 0xffff, q = x >> 16;
  if (rem > 0x8000 || (rem == 0x8000 && (q & 1))) q++;
  return (uint16_t)q;
}

inline float tl_bf16_to_f32(uint16_t b) { return tl_bits_f32((uint32_t)b << 16); }

// Float8 values decode exactly; the reference only copies them and fills
// them with finite values, so no float8 rounding is needed.
inline double tl_fp8_to_double(uint8_t v, int e4m3) {
  int sign = v >> 7, e, mant;
  double r;
  if (e4m3) {
    e = (v >> 3) & 0xf; mant = v & 7;
    if (e == 0xf && mant == 7) return NAN;
    r = e == 0 ? ldexp(mant / 8.0, -6) : ldexp(1 + mant / 8.0, e - 7);
  } else {
    e = (v >> 2) & 0x1f; mant = v & 3;
    if (e == 0x1f) return mant ? NAN : (sign ? -INFINITY : INFINITY);
    r = e == 0 ? ldexp(mant / 4.0, -14) : ldexp(1 + mant / 4.0, e - 15);
  }
  return sign ? -r : r;
}

inline int tl_is_float(DType dt) { return dt >= TL_F16 && dt <= TL_E5M2; }

// tl_round rounds x to a value of type dt (integers wrap like the GPU's
// two's complement; float-to-integer truncates toward zero).
inline double tl_round(DType dt, double x) {
  switch (dt) {
    case TL_F64: return x;
    case TL_F32: return (double)(float)x;
    case TL_F16: return tl_f16_to_f32(tl_f32_to_f16((float)x));
    case TL_BF16: return tl_bf16_to_f32(tl_f32_to_bf16((float)x));
    case TL_BOOL: return x != 0;
    case TL_E4M3: case TL_E5M2: tl_die("arithmetic on float8 values is not modelled", "dtype");
    default: break;
  }
  if (std::isnan(x)) return 0;
  long long v = (long long)std::trunc(x);
  switch (dt) {
    case TL_I8: return (double)(int8_t)v;
    case TL_I16: return (double)(int16_t)v;
    case TL_I32: return (double)(int32_t)v;
    case TL_U8: return (double)(uint8_t)v;
    case TL_U16: return (double)(uint16_t)v;
    case TL_U32: return (double)(uint32_t)v;
    case TL_U64: return (double)(uint64_t)v;
    default: return (double)v;
  }
}

inline double tl_load(const Buf& b, const unsigned char* p) {
  switch (b.dt) {
    case TL_I8: { int8_t v; memcpy(&v, p, 1); return v; }
    case TL_I16: { int16_t v; memcpy(&v, p, 2); return v; }
    case TL_I32: { int32_t v; memcpy(&v, p, 4); return v; }
    case TL_I64: { int64_t v; memcpy(&v, p, 8); return (double)v; }
    case TL_U8: case TL_BOOL: return *p;
    case TL_U16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case TL_U32: { uint32_t v; memcpy(&v, p, 4); return v; }
    case TL_U64: { uint64_t v; memcpy(&v, p, 8); return (double)v; }
    case TL_F16: { uint16_t v; memcpy(&v, p, 2); return tl_f16_to_f32(v); }
    case TL_BF16: { uint16_t v; memcpy(&v, p, 2); return tl_bf16_to_f32(v); }
    case TL_F32: { float v; memcpy(&v, p, 4); return v; }
    case TL_F64: { double v; memcpy(&v, p, 8); return v; }
    case TL_E4M3: return tl_fp8_to_double(*p, 1);
    case TL_E5M2: return tl_fp8_to_double(*p, 0);
    case TL_B128: tl_die("arithmetic on 128-bit values is not modelled", b.name);
  }
  return 0;
}

// tl_store stores x, already rounded to b's type or not (it rounds again).
inline void tl_store(const Buf& b, unsigned char* p, double x) {
  x = tl_round(b.dt, x);
  switch (b.dt) {
    case TL_I8: case TL_U8: case TL_BOOL: { uint8_t v = (uint8_t)(long long)x; memcpy(p, &v, 1); break; }
    case TL_I16: case TL_U16: { uint16_t v = (uint16_t)(long long)x; memcpy(p, &v, 2); break; }
    case TL_I32: case TL_U32: { uint32_t v = (uint32_t)(long long)x; memcpy(p, &v, 4); break; }
    case TL_I64: { int64_t v = (int64_t)x; memcpy(p, &v, 8); break; }
    case TL_U64: { uint64_t v = (uint64_t)x; memcpy(p, &v, 8); break; }
    case TL_F16: { uint16_t v = tl_f32_to_f16((float)x); memcpy(p, &v, 2); break; }
    case TL_BF16: { uint16_t v = tl_f32_to_bf16((float)x); memcpy(p, &v, 2); break; }
    case TL_F32: { float v = (float)x; memcpy(p, &v, 4); break; }
    case TL_F64: memcpy(p, &x, 8); break;
    default: tl_die(b.dt == TL_B128 ? "arithmetic on 128-bit values is not modelled" : "stores of float8 values are not modelled", b.name);
  }
}

// tl_nan_bits writes the NaN that TMA's oob='nan' fill reads as.
inline void tl_nan_bits(DType dt, unsigned char* p) {
  switch (dt) {
    case TL_F16: { uint16_t v = 0x7fff; memcpy(p, &v, 2); break; }
    case TL_BF16: { uint16_t v = 0x7fff; memcpy(p, &v, 2); break; }
    case TL_F32: { uint32_t v = 0x7fffffffu; memcpy(p, &v, 4); break; }
    case TL_F64: { uint64_t v = 0x7fffffffffffffffull; memcpy(p, &v, 8); break; }
    case TL_E4M3: *p = 0x7f; break;
    case TL_E5M2: *p = 0x7f; break;
    default: memset(p, 0, 1); break;
  }
}

// tl_undef is set by a scalar statement's load of an element the program
// never wrote (uninitialized shared or register storage): the statement's
// store then leaves its element undefined (not compared). Each store
// clears it before its operands are evaluated.
static int tl_undef = 0;

// tl_rd is a scalar statement's load (race-checked); tl_wr its store,
// which defines the element unless the value read undefined memory.
inline double tl_rd(const Buf& b, const unsigned char* p) {
  tl_check(b, p, nullptr);
  if (!tl_defined(b, p)) tl_undef = 1;
  return tl_load(b, p);
}

// tl_put stores the value whose bytes are v (race-checked) with the given
// definedness.
inline void tl_put(const Buf& b, unsigned char* p, const unsigned char* v, int def) {
  tl_check(b, p, v);
  memcpy(p, v, b.esize);
  tl_set_defined(b, p, def);
}

// tl_put_either writes v at p, which may instead hold alt: defined when
// the two are the same bytes.
inline void tl_put_either(const Buf& b, unsigned char* p, const unsigned char* v, const unsigned char* alt) {
  tl_check(b, p, v);
  memcpy(p, v, b.esize);
  if (!b.def || memcmp(v, alt, b.esize) == 0) {
    tl_set_defined(b, p, 1);
    return;
  }
  memset(b.def + (p - b.data), 2, b.esize);
  std::array<unsigned char, 16> a{};
  memcpy(a.data(), alt, b.esize);
  tl_alts[p] = a;
}

inline void tl_wr(const Buf& b, unsigned char* p, double x, int def = -1) {
  unsigned char v[16];
  tl_store(b, v, x);
  tl_put(b, p, v, def < 0 ? !tl_undef : def);
}

// tl_rd_i and tl_wr_i are tl_rd and tl_wr of an integer value: exact for
// 64-bit elements, whose values a double does not hold (a uint64 view of
// four bfloat16 ones is 0x3f803f803f803f80).
inline long long tl_rd_i(const Buf& b, const unsigned char* p) {
  tl_check(b, p, nullptr);
  if (!tl_defined(b, p)) tl_undef = 1;
  switch (b.dt) {
    case TL_I64: { int64_t v; memcpy(&v, p, 8); return v; }
    case TL_U64: { uint64_t v; memcpy(&v, p, 8); return (long long)v; }
    default: return (long long)tl_load(b, p);
  }
}

inline void tl_wr_i(const Buf& b, unsigned char* p, long long x, int def = -1) {
  unsigned char v[16];
  if (b.dt == TL_I64 || b.dt == TL_U64) memcpy(v, &x, 8);
  else tl_store(b, v, (double)x);
  tl_put(b, p, v, def < 0 ? !tl_undef : def);
}

inline void tl_unflatten(long long k, const Region& r, long long* idx) {
  for (int d = r.rank - 1; d >= 0; d--) {
    idx[d] = r.mn[d] + k % r.ext[d];
    k /= r.ext[d];
  }
}

inline long long tl_numel(const Region& r) {
  long long n = 1;
  for (int d = 0; d < r.rank; d++) n *= r.ext[d];
  return n;
}

// tl_write calls f(address) for every replica of element idx of b (a
// replicated register tile holds a copy in each of its threads).
template <class F>
inline void tl_write(const Buf& b, const long long* idx, int leader, int nt, F f) {
  long long n = b.L ? tl_replicas(b.L) : 1;
  for (long long r = 0; r < n; r++) f(tl_addr(b, idx, r, leader, nt));
}

// tl_copy is copy/copy_async: the k-th element of src (row-major over its
// region) goes to the k-th element of dst; the regions' non-unit extents
// are equal (the evaluator checked it). Elements outside a global
// tensor (TMA regions may leave it) read as the fill (zero, or NaN with
// nanfill) and are not written. reduce: 0 plain, 1 add, 2 min, 3 max.
inline void tl_copy(const Region& dst, const Region& src, int leader, int nt, int nanfill, int reduce) {
  long long n = tl_numel(dst), di[8], si[8];
  unsigned char tmp[16];
  for (long long k = 0; k < n; k++) {
    tl_unflatten(k, dst, di);
    tl_unflatten(k, src, si);
    if (dst.b->global && !tl_inside(*dst.b, di)) continue;
    int def = 1;
    const unsigned char* alt = nullptr;  // the other value the source may hold
    if (src.b->global && !tl_inside(*src.b, si)) {
      if (nanfill) tl_nan_bits(src.b->dt, tmp);
      else memset(tmp, 0, sizeof tmp);
    } else {
      const unsigned char* p = tl_addr(*src.b, si, 0, leader, nt);
      tl_check(*src.b, p, nullptr);
      def = tl_defined(*src.b, p);
      if (!def && tl_either(*src.b, p) && !reduce && src.b->esize == dst.b->esize) alt = tl_alts[p].data();
      memcpy(tmp, p, src.b->esize);
    }
    if (alt) {
      tl_write(*dst.b, di, leader, nt, [&](unsigned char* p) { tl_put_either(*dst.b, p, tmp, alt); });
      continue;
    }
    if (reduce) {
      double s = tl_load(*src.b, tmp);
      tl_write(*dst.b, di, leader, nt, [&](unsigned char* p) {
        double d = tl_load(*dst.b, p);
        unsigned char v[16];
        tl_store(*dst.b, v, reduce == 1 ? d + s : reduce == 2 ? std::min(d, s) : std::max(d, s));
        tl_put(*dst.b, p, v, def && tl_defined(*dst.b, p));
      });
      continue;
    }
    tl_write(*dst.b, di, leader, nt, [&](unsigned char* p) { tl_put(*dst.b, p, tmp, def); });
  }
}

// tl_copy_pred is copy_async under a per-thread predicate (ldgsts's
// predicate=): each thread copies its own elements when its predicate
// holds, and otherwise leaves them (or, zfill, writes zero). mode 1: the
// predicate holds in every active thread of the call (a plain copy); 0:
// in none; 2: in some, which elements are whose the reference does not
// know, so each element is the source's value or the one left there.
inline void tl_copy_pred(const Region& dst, const Region& src, int leader, int nt, int mode, int zfill) {
  if (mode == 1) {
    tl_copy(dst, src, leader, nt, 0, 0);
    return;
  }
  long long n = tl_numel(dst), di[8], si[8];
  unsigned char tmp[16], zero[16] = {0};
  for (long long k = 0; k < n; k++) {
    tl_unflatten(k, dst, di);
    tl_unflatten(k, src, si);
    if (dst.b->global && !tl_inside(*dst.b, di)) continue;
    if (mode == 0) {
      if (zfill) tl_write(*dst.b, di, leader, nt, [&](unsigned char* p) { tl_put(*dst.b, p, zero, 1); });
      continue;
    }
    int def = 1;
    if (src.b->global && !tl_inside(*src.b, si)) {
      memset(tmp, 0, sizeof tmp);
    } else {
      const unsigned char* p = tl_addr(*src.b, si, 0, leader, nt);
      tl_check(*src.b, p, nullptr);
      def = tl_defined(*src.b, p);
      memcpy(tmp, p, src.b->esize);
    }
    tl_write(*dst.b, di, leader, nt, [&](unsigned char* p) {
      if (zfill) {
        if (def) tl_put_either(*dst.b, p, tmp, zero);
        else tl_put(*dst.b, p, tmp, 0);
        return;
      }
      if (def && tl_defined(*dst.b, p)) {
        unsigned char old[16];
        memcpy(old, p, dst.b->esize);
        tl_put_either(*dst.b, p, tmp, old);
      } else {
        tl_put(*dst.b, p, tmp, 0);
      }
    });
  }
}

// Operand is one elementwise source: a region, or a scalar value.
struct Operand {
  const Region* r;
  double v;
};

// tl_ewise evaluates fn on every element of dst: a source region of the
// destination's size is read at the same row-major position, a smaller one
// broadcast NumPy-style (right-aligned; its extent-1 dims stay at their
// start); fn gets the source values and returns the destination value.
template <class F>
inline void tl_ewise(const Region& dst, const Operand* srcs, int ns, int leader, int nt, F fn) {
  long long n = tl_numel(dst), di[8], si[8], li[8];
  double vals[4];
  for (long long k = 0; k < n; k++) {
    long long kk = k;
    for (int d = dst.rank - 1; d >= 0; d--) {
      li[d] = kk % dst.ext[d];
      kk /= dst.ext[d];
      di[d] = dst.mn[d] + li[d];
    }
    int def = 1;
    for (int s = 0; s < ns; s++) {
      const Region* r = srcs[s].r;
      if (!r) { vals[s] = srcs[s].v; continue; }
      if (tl_numel(*r) == n) {
        tl_unflatten(k, *r, si);
      } else {
        for (int j = 0; j < r->rank; j++) {
          int d = j + (dst.rank - r->rank);
          si[j] = r->mn[j] + ((r->ext[j] == 1 || d < 0) ? 0 : li[d]);
        }
      }
      const unsigned char* p = tl_addr(*r->b, si, 0, leader, nt);
      tl_check(*r->b, p, nullptr);
      def = def && tl_defined(*r->b, p);
      vals[s] = tl_load(*r->b, p);
    }
    unsigned char v[16];
    tl_store(*dst.b, v, fn(vals));
    tl_write(*dst.b, di, leader, nt, [&](unsigned char* p) { tl_put(*dst.b, p, v, def); });
  }
}

// tl_elect is T.ptx.elect_sync() for thread t: 1 in the lowest active lane
// of its warp.
template <class A>
inline int tl_elect(int t, A active) {
  for (int u = t - t % 32; u < t; u++)
    if (active(u)) return 0;
  return 1;
}

// tl_shfl is a warp shuffle for thread t (shfl.sync's lane rule, as the
// CUDA functions call it: c = ((32 - width) << 8) | 31, 0 for up): mode
// 'i' (index), 'u' (up), 'd' (down) or 'x' (xor) with operand b; val(u) is
// the shuffled value in thread u. A lane whose source is outside its
// segment keeps its own value.
template <class V>
inline auto tl_shfl(int t, char mode, long long width, long long b, V val) -> decltype(val(t)) {
  int base = t - t % 32, lane = t % 32;
  long long seg = 32 - width;
  long long minl = lane & seg, maxl = minl | (31 & ~seg);
  long long j = lane;
  bool valid = false;
  switch (mode) {
    case 'i': j = minl | (b & 31 & ~seg); valid = j <= maxl; break;
    case 'u': j = lane - b; valid = j >= minl; break;
    case 'd': j = lane + b; valid = j <= maxl; break;
    case 'x': j = lane ^ b; valid = j <= maxl; break;
  }
  if (!valid) j = lane;
  return val(base + (int)j);
}

// tl_cta_reduce is T.cuda.cta_sum / cta_max / cta_min (op 0, 1, 2) of
// val over the nw warps of the CTA, in the order the generated helper
// combines them: a butterfly over each warp's 32 lanes (xor 16, 8, 4, 2,
// 1; every lane ends with lane 0's value), lane 0 of each warp's result
// in scratch, then a butterfly of those over warp 0's lanes (the identity
// past nw). Each step rounds to dt, as the device's arithmetic does.
template <class V>
inline double tl_cta_reduce(int op, int nw, DType dt, V val) {
  auto comb = [&](double a, double b) {
    double r = op == 0 ? a + b : op == 1 ? std::fmax(a, b) : std::fmin(a, b);
    return tl_round(dt, r);
  };
  auto butterfly = [&](double* s) {
    for (int m = 16; m > 0; m >>= 1) {
      double t[32];
      for (int l = 0; l < 32; l++) t[l] = comb(s[l], s[l ^ m]);
      for (int l = 0; l < 32; l++) s[l] = t[l];
    }
  };
  double w[32], s[32];
  for (int wi = 0; wi < nw; wi++) {
    for (int l = 0; l < 32; l++) s[l] = val(wi * 32 + l);
    butterfly(s);
    w[wi] = s[0];
  }
  double id = op == 0 ? 0.0 : op == 1 ? -INFINITY : INFINITY;
  for (int l = 0; l < 32; l++) s[l] = l < nw ? w[l] : id;
  butterfly(s);
  return s[0];
}

// tl_warp_reduce is T.cuda.warp_sum / warp_max / warp_min (op 0, 1, 2)
// for thread t over its segment of width lanes: the generated helper's
// butterfly (xor width/2 ... 1), every lane of the segment ending with its
// first lane's value, rounded to dt at each step.
template <class V>
inline double tl_warp_reduce(int t, int op, int width, DType dt, V val) {
  int base = t - t % 32 + (t % 32) / width * width;
  double s[32];
  for (int l = 0; l < width; l++) s[l] = val(base + l);
  for (int m = width >> 1; m > 0; m >>= 1) {
    double n[32];
    for (int l = 0; l < width; l++) {
      double a = s[l], b = s[l ^ m];
      n[l] = tl_round(dt, op == 0 ? a + b : op == 1 ? std::fmax(a, b) : std::fmin(a, b));
    }
    for (int l = 0; l < width; l++) s[l] = n[l];
  }
  return s[(t % 32) % width];
}

// tl_any is __any_sync for thread t: whether pred(u) holds in a lane u of
// its warp that takes part (in(u): active and in the mask).
template <class I, class P>
inline long long tl_any(int t, I in, P pred) {
  for (int u = t - t % 32; u < t - t % 32 + 32; u++)
    if (in(u) && pred(u)) return 1;
  return 0;
}

// xorshift64*: the seeded generator every buffer is filled from.
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull) { if (!s) s = 1; }
  uint64_t next() { s ^= s >> 12; s ^= s << 25; s ^= s >> 27; return s * 0x2545f4914f6cdd1dull; }
};

// fill writes n elements of dt: floats uniform in [lo, hi) rounded to dt
// (finite float8 values for the float8 types), integers uniform over their
// whole range.
inline void fill(unsigned char* p, DType dt, int esize, long long n, uint64_t seed, double lo, double hi) {
  Rng g(seed);
  Buf b{"fill", p, 0, dt, esize, 1, {n}, nullptr, 0, 0};
  for (long long i = 0; i < n; i++) {
    uint64_t r = g.next();
    unsigned char* q = p + i * esize;
    if (dt == TL_E4M3) { uint8_t v = (uint8_t)(r >> 56); if ((v & 0x7f) == 0x7f) v ^= 1; *q = v; continue; }
    if (dt == TL_E5M2) { uint8_t v = (uint8_t)(r >> 56); if (((v >> 2) & 0x1f) == 0x1f) v &= 0x83; *q = v; continue; }
    if (tl_is_float(dt)) {
      tl_store(b, q, lo + (hi - lo) * (double)(r >> 11) * (1.0 / 9007199254740992.0));
      continue;
    }
    if (dt == TL_BOOL) { *q = (unsigned char)(r >> 63); continue; }
    memcpy(q, &r, esize);
  }
}

// same compares one element: bit for bit (NaN equals NaN), or for floats
// within |got - want| <= atol + rtol * |want| when tol is set.
inline bool same(DType dt, int esize, const unsigned char* got, const unsigned char* want, bool tol, double rtol, double atol) {
  if (memcmp(got, want, esize) == 0) return true;
  if (!tl_is_float(dt)) return false;
  Buf b{"cmp", nullptr, 0, dt, esize, 1, {1}, nullptr, 0, 0};
  double g = tl_load(b, got), w = tl_load(b, want);
  if (std::isnan(g) && std::isnan(w)) return true;
  if (!tol) return g == w;  // +0 and -0 differ in bits only
  if (std::isinf(w) || std::isinf(g)) return g == w;
  return std::fabs(g - w) <= atol + rtol * std::fabs(w);
}

inline void show(DType dt, int esize, const unsigned char* p, char* out, size_t n) {
  Buf b{"show", nullptr, 0, dt, esize, 1, {1}, nullptr, 0, 0};
  if (tl_is_float(dt)) snprintf(out, n, "%.9g", tl_load(b, p));
  else snprintf(out, n, "%.0f", tl_load(b, p));
}

}  // namespace tilels_ref
`

// harnessPrelude is the part of main's runtime that needs CUDA: random
// fill, comparison and timing. It follows the kernels in the same file.
const harnessPrelude = `// ---- harness main (tilels --harness) ----
namespace tilels_h {

using namespace tilels_ref;

inline bool cuda_ok(cudaError_t e, const char* what, const char* kernel) {
  if (e == cudaSuccess) return true;
  printf("FAIL %s: %s: %s (%s)\n", kernel, what, cudaGetErrorName(e), cudaGetErrorString(e));
  return false;
}

struct Arg {
  const char* name;
  DType dt;
  int esize;
  long long elems;   // storage elements, elem_offset included
  int rank;
  long long shape[8];
  long long eoff;    // the buffer's elem_offset
  const Layout* L;   // nullptr: row-major
  unsigned char* host;  // the inputs, then the reference's result
  unsigned char* dev;
};

// index prints the logical index of storage element e of a (the first
// logical element stored there), or the storage offset when none is.
inline void index_of(const Arg& a, long long e, char* out, size_t n) {
  long long total = 1;
  for (int d = 0; d < a.rank; d++) total *= a.shape[d];
  for (long long f = 0; f < total && a.L; f++) {
    long long ax[AX_N];
    tl_place(a.L, f, 0, ax);
    if (ax[AX_M] + a.eoff != e) continue;
    long long idx[8], k = f;
    for (int d = a.rank - 1; d >= 0; d--) { idx[d] = k % a.shape[d]; k /= a.shape[d]; }
    size_t w = snprintf(out, n, "[");
    for (int d = 0; d < a.rank; d++) w += snprintf(out + w, n - w, d ? ", %lld" : "%lld", idx[d]);
    snprintf(out + w, n - w, "]");
    return;
  }
  if (!a.L && e >= a.eoff && e - a.eoff < total) {
    long long idx[8], k = e - a.eoff;
    for (int d = a.rank - 1; d >= 0; d--) { idx[d] = k % a.shape[d]; k /= a.shape[d]; }
    size_t w = snprintf(out, n, "[");
    for (int d = 0; d < a.rank; d++) w += snprintf(out + w, n - w, d ? ", %lld" : "%lld", idx[d]);
    snprintf(out + w, n - w, "]");
    return;
  }
  snprintf(out, n, "(storage element %lld)", e);
}

struct Options {
  int bench;       // timed launches after the check (0: none)
  bool memcpy_ref; // also time cudaMemcpy device to device of the same bytes
  const char* only;
  uint64_t seed;
};

}  // namespace tilels_h
`
