#ifndef MATSITE_CLIBCRYPTO_SHIM_H
#define MATSITE_CLIBCRYPTO_SHIM_H
// OpenSSL's libcrypto, for SHA-256 only: imported by MatsiteKit's Support/SHA256.swift and
// nowhere else.
//
// The SHA256_CTX functions rather than EVP: the context is a plain C struct, so a Swift
// value holds it (copying the value copies the hash state), and nothing is allocated, so
// nothing can fail. OpenSSL 3 marks them deprecated in favour of EVP but keeps them, and
// they run the same assembly. The deprecation attributes are switched off for this header
// only.
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/sha.h>

static inline void matsite_sha256_init(SHA256_CTX *context) {
    SHA256_Init(context);
}

static inline void matsite_sha256_update(SHA256_CTX *context, const void *bytes, size_t count) {
    SHA256_Update(context, bytes, count);
}

/// Writes the 32-byte digest; `context` is used up (pass a copy to keep hashing).
static inline void matsite_sha256_final(SHA256_CTX *context, unsigned char out[32]) {
    SHA256_Final(out, context);
}
#endif
