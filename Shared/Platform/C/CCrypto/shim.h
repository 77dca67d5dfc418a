#ifndef CCrypto_SHIM_H
#define CCrypto_SHIM_H
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

/* EVP_PKEY_RSA is a macro over an NID; expose it as a function so Swift
   does not depend on how the macro chain imports. */
static inline int sf_evp_pkey_is_rsa(const EVP_PKEY *key) {
    return EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA;
}

/* The same for elliptic-curve keys (EVP_PKEY_EC). */
static inline int sf_evp_pkey_is_ec(const EVP_PKEY *key) {
    return EVP_PKEY_get_base_id(key) == EVP_PKEY_EC;
}

static inline int sf_evp_pkey_bits(const EVP_PKEY *key) {
    return EVP_PKEY_get_bits(key);
}

/* BN_num_bytes is a macro. */
static inline int sf_bn_num_bytes(const BIGNUM *bn) {
    return BN_num_bytes(bn);
}

#endif
