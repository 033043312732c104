// Run by scripts/amxBuild.mjs before llama.cpp is compiled with -march=native on a CPU with AMX:
// does ggml's AMX set-up, from this compiler, run on this machine? Exit status 0 if it does.
//
// Why: GCC 12's _tile_loadconfig (amxtileintrin.h) tells the compiler that it reads 8 bytes, so
// with optimization the stores that fill in the rest of a tile configuration are dropped; ggml's
// AMX kernels (ggml-cpu/amx/mmq.cpp, ggml_tile_config_init) then load a configuration without
// tile shapes and the first tile instruction faults (SIGILL or SIGSEGV): every generation with a
// Q8_0 model crashed. The same code is built here the way ggml builds it (-O3 -march=native),
// with the barrier scripts/amxBuild.mjs adds to ggml's copy where it could
// (CHATSERVE_TILE_BARRIER=1). A kernel that refuses AMX to the process, or a machine that traps
// its instructions, fails too.
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

// As ggml-cpu/amx/common.h and mmq.cpp declare it.
struct tile_config_t {
    uint8_t palette_id = 0;
    uint8_t start_row = 0;
    uint8_t reserved_0[14] = {0};
    uint16_t colsb[16] = {0};
    uint8_t rows[16] = {0};
};

// noinline: configured on a stack frame of its own, as in ggml, not folded into main.
__attribute__((noinline)) static void configureTiles() {
    alignas(64) tile_config_t tc = {};
    tc.palette_id = 1;
    for (int i = 0; i < 8; i++) {
        tc.rows[i] = 16;
        tc.colsb[i] = 64;
    }
#if CHATSERVE_TILE_BARRIER
    __asm__ volatile("" : : "r"(&tc) : "memory");
#endif
    _tile_loadconfig(&tc);
}

int main() {
    // Linux hands out AMX tile data only on request (ggml_amx_init makes the same one).
    const long ARCH_REQ_XCOMP_PERM = 0x1023, XFEATURE_XTILEDATA = 18;
    if (syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) != 0)
        return 2;
    configureTiles();
    _tile_zero(0);
    _tile_zero(7);
    _tile_release();
    return 0;
}
