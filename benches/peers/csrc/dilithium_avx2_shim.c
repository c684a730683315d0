/*
 * nttfuse-peers glue for pq-crystals/dilithium's avx2 NTT (our code).
 *
 * build.rs compiles this with DILITHIUM_DIR/avx2 on the include path and
 * DILITHIUM_MODE=3, next to that directory's consts.c and ntt/invntt/
 * pointwise/shuffle assembly. The wrappers do what dilithium's own
 * poly_ntt / poly_invntt_tomont / poly_pointwise_montgomery / poly_nttunpack
 * do: pass the coefficient array and the constant table qdata.
 * Pointers must be 32-byte aligned.
 */
#include <stdint.h>

#include "consts.h"
#include "ntt.h"

void peer_dilithium_avx2_ntt(int32_t *a);
void peer_dilithium_avx2_invntt_tomont(int32_t *a);
void peer_dilithium_avx2_pointwise_montgomery(int32_t *c, const int32_t *a,
                                              const int32_t *b);
void peer_dilithium_avx2_nttunpack(int32_t *a);

void peer_dilithium_avx2_ntt(int32_t *a) { ntt_avx((__m256i *)a, qdata.vec); }

void peer_dilithium_avx2_invntt_tomont(int32_t *a)
{
  invntt_avx((__m256i *)a, qdata.vec);
}

void peer_dilithium_avx2_pointwise_montgomery(int32_t *c, const int32_t *a,
                                              const int32_t *b)
{
  pointwise_avx((__m256i *)c, (const __m256i *)a, (const __m256i *)b,
                qdata.vec);
}

void peer_dilithium_avx2_nttunpack(int32_t *a) { nttunpack_avx((__m256i *)a); }
