// The front binary's libsecp256k1 and libxxhash, loaded on first use.
// engine/ calls a few functions of each (Schnorr signing, the xxHash of a
// record key); linked, both would be mapped by every `buzz` command,
// `buzz version` and help too. Linked into `buzz` only, these definitions
// stand in for the library's: the first call of one dlopens its library and
// binds the name, later calls go straight through. The full binary and the
// tests link the libraries themselves. (libcrypto is not loaded at all: the
// front hashes with libnettle, front_sha256.cpp.)
//
// Kept in step with what the front references: `readelf -d build/buzz` names
// neither, and CliHttpTest checks that a command maps them only when it uses
// them. A function engine/ starts calling is either added here or brings its
// library back into every start.
#include <dlfcn.h>
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
