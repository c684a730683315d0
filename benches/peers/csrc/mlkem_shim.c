/*
 * nttfuse-peers glue for mlkem-native (our code, not mlkem-native's).
 *
 * build.rs compiles this file once per peer build, with MLKEM_NATIVE_DIR/mlkem
 * on the include path and these macros set on the command line:
 *   MLK_CONFIG_PARAMETER_SET          512, 768 or 1024 (k = 2, 3, 4)
 *   MLK_CONFIG_NAMESPACE_PREFIX       a prefix unique to the build
 *   MLK_CONFIG_INTERNAL_API_QUALIFIER static (internal functions stay in this
 *                                     unit, so the calls below inline as in
 *                                     mlkem-native's own callers)
 *   MLK_CONFIG_USE_NATIVE_BACKEND_ARITH  for the AVX2 builds only
 *   PEER_SHIM_PREFIX                  the prefix of the functions exported here
 *
 * mlkem_native.c is mlkem-native's single-compilation-unit build; it
 * #undefs its short names at its end, so the calls below spell the
 * namespaced names out: <prefix>_poly_ntt and so on. Pointers must be
 * 32-byte aligned (mlk_poly is MLK_ALIGN'd and the assembly may rely on it).
 */
#include "mlkem_native.c"

#include <stdint.h>

#define PEER_CAT_(a, b) a##b
#define PEER_CAT(a, b) PEER_CAT_(a, b)
#define PEER_MLK(s) PEER_CAT(PEER_CAT(MLK_CONFIG_NAMESPACE_PREFIX, _), s)
#define PEER_FN(s) PEER_CAT(PEER_CAT(PEER_SHIM_PREFIX, _), s)

int PEER_FN(k)(void);
void PEER_FN(poly_ntt)(int16_t *p);
void PEER_FN(poly_invntt_tomont)(int16_t *p);
void PEER_FN(polyvec_ntt)(int16_t *v);
void PEER_FN(polyvec_invntt_tomont)(int16_t *v);
void PEER_FN(poly_mulcache_compute)(int16_t *cache, const int16_t *p);
void PEER_FN(polyvec_mulcache_compute)(int16_t *cache, const int16_t *v);
void PEER_FN(polyvec_basemul_acc_montgomery_cached)(int16_t *r,
                                                    const int16_t *a,
                                                    const int16_t *b,
                                                    const int16_t *b_cache);
int PEER_FN(permute_bitrev_to_custom)(int16_t *p);

/* The k of this build, from the size of its polynomial vector. */
int PEER_FN(k)(void) { return (int)(sizeof(mlk_polyvec) / sizeof(mlk_poly)); }

void PEER_FN(poly_ntt)(int16_t *p) { PEER_MLK(poly_ntt)((mlk_poly *)p); }

void PEER_FN(poly_invntt_tomont)(int16_t *p)
{
  PEER_MLK(poly_invntt_tomont)((mlk_poly *)p);
}

void PEER_FN(polyvec_ntt)(int16_t *v) { PEER_MLK(polyvec_ntt)((mlk_polyvec *)v); }

void PEER_FN(polyvec_invntt_tomont)(int16_t *v)
{
  PEER_MLK(polyvec_invntt_tomont)((mlk_polyvec *)v);
}

void PEER_FN(poly_mulcache_compute)(int16_t *cache, const int16_t *p)
{
  PEER_MLK(poly_mulcache_compute)((mlk_poly_mulcache *)cache,
                                  (const mlk_poly *)p);
}

void PEER_FN(polyvec_mulcache_compute)(int16_t *cache, const int16_t *v)
{
  PEER_MLK(polyvec_mulcache_compute)((mlk_polyvec_mulcache *)cache,
                                     (const mlk_polyvec *)v);
}

void PEER_FN(polyvec_basemul_acc_montgomery_cached)(int16_t *r,
                                                    const int16_t *a,
                                                    const int16_t *b,
                                                    const int16_t *b_cache)
{
  PEER_MLK(polyvec_basemul_acc_montgomery_cached)(
      (mlk_poly *)r, (const mlk_polyvec *)a, (const mlk_polyvec *)b,
      (const mlk_polyvec_mulcache *)b_cache);
}

/* The AVX2 backend keeps NTT-domain polynomials in its own order; this maps
 * the standard (bit-reversed) order to it. Returns 1 if it permuted, 0 where
 * the build has no native backend (standard order: nothing to do). */
int PEER_FN(permute_bitrev_to_custom)(int16_t *p)
{
#if defined(MLK_CONFIG_USE_NATIVE_BACKEND_ARITH)
  PEER_MLK(nttunpack_avx2_asm)(p);
  return 1;
#else
  (void)p;
  return 0;
#endif
}
