// The front binary's libcrypto, libsecp256k1 and libxxhash, loaded on first
// use. engine/ calls a few functions of each (SHA-256 for an event id,
// Schnorr signing, the xxHash of a record key); linked, the three would be
// mapped and relocated by every `buzz` command, `buzz version` and help too,
// and libcrypto alone is most of what such a command costs past an empty
// C++ `main` (docs/performance.md, CLI start-up). Linked into `buzz` only,
// these definitions stand in for the library's: the first call of one
// dlopens its library and binds the name, later calls go straight through.
// The full binary and the tests link the libraries themselves.
//
// Kept in step with what the front references: `readelf -d build/buzz` names
// none of the three, and LoadedLibrariesTest checks that a command maps them
// only when it uses them. A function engine/ starts calling is either added
// here or brings its library back into every start.
#include <dlfcn.h>
#include <openssl/evp.h>
#include <secp256k1.h>
#include <secp256k1_extrakeys.h>
#include <secp256k1_schnorrsig.h>
#include <xxhash.h>

#include <string>

#include "tools/cli/cli_error.h"

namespace {

struct Library {
  const char* soname;
  void* handle = nullptr;

  // The address of `name`; a library that will not load, or lacks the name,
  // is an install problem, reported as the CLI reports any (exit 4).
  void* symbol(const char* name) {
    if (!handle && !(handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL))) {
      throw buzz::cli::CliError(buzz::cli::Category::kOther, std::string("could not load ") + soname + ": " + dlerror());
    }
    void* address = dlsym(handle, name);
    if (!address) throw buzz::cli::CliError(buzz::cli::Category::kOther, std::string(soname) + " has no " + name);
    return address;
  }
};

Library crypto{"libcrypto.so.3"};
Library secp256k1{"libsecp256k1.so.1"};
Library xxhash{"libxxhash.so.0"};

// Calls the library's `name`, bound once per stand-in (`Self`, whose type it shares).
template <auto Self, typename... Args>
auto forward(Library& library, const char* name, Args... args) {
  static const auto bound = reinterpret_cast<decltype(Self)>(library.symbol(name));
  return bound(args...);
}

}  // namespace

extern "C" {

EVP_MD* EVP_MD_fetch(OSSL_LIB_CTX* ctx, const char* algorithm, const char* properties) {
  return forward<&EVP_MD_fetch>(crypto, "EVP_MD_fetch", ctx, algorithm, properties);
}
void EVP_MD_free(EVP_MD* md) { forward<&EVP_MD_free>(crypto, "EVP_MD_free", md); }
EVP_MD_CTX* EVP_MD_CTX_new() { return forward<&EVP_MD_CTX_new>(crypto, "EVP_MD_CTX_new"); }
void EVP_MD_CTX_free(EVP_MD_CTX* ctx) { forward<&EVP_MD_CTX_free>(crypto, "EVP_MD_CTX_free", ctx); }
int EVP_DigestInit_ex2(EVP_MD_CTX* ctx, const EVP_MD* type, const OSSL_PARAM params[]) {
  return forward<&EVP_DigestInit_ex2>(crypto, "EVP_DigestInit_ex2", ctx, type, params);
}
int EVP_DigestUpdate(EVP_MD_CTX* ctx, const void* d, size_t cnt) {
  return forward<&EVP_DigestUpdate>(crypto, "EVP_DigestUpdate", ctx, d, cnt);
}
int EVP_DigestFinal_ex(EVP_MD_CTX* ctx, unsigned char* md, unsigned int* s) {
  return forward<&EVP_DigestFinal_ex>(crypto, "EVP_DigestFinal_ex", ctx, md, s);
}

secp256k1_context* secp256k1_context_create(unsigned int flags) {
  return forward<&secp256k1_context_create>(secp256k1, "secp256k1_context_create", flags);
}
int secp256k1_keypair_create(const secp256k1_context* ctx, secp256k1_keypair* keypair, const unsigned char* seckey) {
  return forward<&secp256k1_keypair_create>(secp256k1, "secp256k1_keypair_create", ctx, keypair, seckey);
}
int secp256k1_keypair_xonly_pub(const secp256k1_context* ctx, secp256k1_xonly_pubkey* pubkey, int* pk_parity,
                                const secp256k1_keypair* keypair) {
  return forward<&secp256k1_keypair_xonly_pub>(secp256k1, "secp256k1_keypair_xonly_pub", ctx, pubkey, pk_parity, keypair);
}
int secp256k1_schnorrsig_sign32(const secp256k1_context* ctx, unsigned char* sig64, const unsigned char* msg32,
                                const secp256k1_keypair* keypair, const unsigned char* aux_rand32) {
  return forward<&secp256k1_schnorrsig_sign32>(secp256k1, "secp256k1_schnorrsig_sign32", ctx, sig64, msg32, keypair, aux_rand32);
}
int secp256k1_schnorrsig_verify(const secp256k1_context* ctx, const unsigned char* sig64, const unsigned char* msg,
                                size_t msglen, const secp256k1_xonly_pubkey* pubkey) {
  return forward<&secp256k1_schnorrsig_verify>(secp256k1, "secp256k1_schnorrsig_verify", ctx, sig64, msg, msglen, pubkey);
}
int secp256k1_xonly_pubkey_parse(const secp256k1_context* ctx, secp256k1_xonly_pubkey* pubkey, const unsigned char* input32) {
  return forward<&secp256k1_xonly_pubkey_parse>(secp256k1, "secp256k1_xonly_pubkey_parse", ctx, pubkey, input32);
}
int secp256k1_xonly_pubkey_serialize(const secp256k1_context* ctx, unsigned char* output32, const secp256k1_xonly_pubkey* pubkey) {
  return forward<&secp256k1_xonly_pubkey_serialize>(secp256k1, "secp256k1_xonly_pubkey_serialize", ctx, output32, pubkey);
}

XXH64_hash_t XXH3_64bits(const void* data, size_t len) { return forward<&XXH3_64bits>(xxhash, "XXH3_64bits", data, len); }

}  // extern "C"
