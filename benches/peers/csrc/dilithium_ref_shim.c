/*
 * nttfuse-peers glue for pq-crystals/dilithium's ref NTT (our code),
 * compiled with DILITHIUM_DIR/ref on the include path and DILITHIUM_MODE=3
 * next to that directory's ntt.c and reduce.c.
 */
#include <stdint.h>

#include "ntt.h"

void peer_dilithium_ref_ntt(int32_t *a);
void peer_dilithium_ref_invntt_tomont(int32_t *a);

void peer_dilithium_ref_ntt(int32_t *a) { ntt(a); }

void peer_dilithium_ref_invntt_tomont(int32_t *a) { invntt_tomont(a); }
