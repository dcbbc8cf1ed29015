// Stub of the CUDA driver header for tilels' g++ compile test.
#pragma once
struct alignas(64) CUtensorMap { unsigned long long opaque[16]; };
