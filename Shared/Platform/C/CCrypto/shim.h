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
#include <openssl/objects.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

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

/* STACK_OF(X509) is built from macros Swift cannot import: a stack that
   borrows (never frees) the certificates pushed on it, and its length. */
static inline STACK_OF(X509) *sf_x509_stack_new(void) {
    return sk_X509_new_null();
}

static inline int sf_x509_stack_push(STACK_OF(X509) *stack, X509 *certificate) {
    return sk_X509_push(stack, certificate);
}

static inline void sf_x509_stack_free(STACK_OF(X509) *stack) {
    sk_X509_free(stack);
}

static inline int sf_x509_stack_count(const STACK_OF(X509) *stack) {
    return sk_X509_num(stack);
}

/* The certificate at `index` (borrowed from the stack). */
static inline X509 *sf_x509_stack_value(const STACK_OF(X509) *stack, int index) {
    return sk_X509_value(stack, index);
}

#endif
