// lockstep keygen — the keys of an authenticated match (docs/rollback.md, "Threat model").
//   lockstep keygen --identity p0.id >> match.keys   # a peer's secret key; its public key on stdout
//   lockstep keygen --match-key match.key            # one shared match key (every player can impersonate every other)
//   lockstep keygen --public-of p0.id                # the public key of an existing identity
//   lockstep keygen --watch-key-of match.key --out watch.key  # what watchers get instead of the match key
// The files are new (never overwritten) and readable by their owner only. The work is
// rollback/peer_identity.h's; this parses and prints.
#include "common.h"

#include <lockstep/rollback/peer_identity.h>

#include <cstdio>

namespace lockstep::cli {

namespace {
struct KeygenArgs {
  std::string identity, match_key, public_of, watch_key_of, out;
};

int keygen_cmd(const KeygenArgs& a) {
  const int given = !a.identity.empty() + !a.match_key.empty() + !a.public_of.empty() + !a.watch_key_of.empty();
  if (given != 1)
    return report_error(false, kExitBadInput, "keygen: give exactly one of --identity, --match-key, --public-of, --watch-key-of");
  if (a.watch_key_of.empty() != a.out.empty())
    return report_error(false, kExitBadInput, "keygen: --out goes with --watch-key-of (and --watch-key-of needs --out)");
  std::string error;
  if (!a.watch_key_of.empty()) {
    rollback::MatchKey match;
    if (!rollback::read_match_key_file(a.watch_key_of, match, error)) return report_error(false, kExitBadInput, error);
    if (!rollback::wire_auth_available())
      return report_error(false, kExitBadInput, "keygen: this build has no libsodium: it cannot derive a watch key");
    if (!rollback::write_watch_key_file(a.out, rollback::derive_watch_key(match), error))
      return report_error(false, kExitBadInput, error);
    std::fprintf(stderr, "%s keygen: wrote the watch key of %s to %s (for watchers: 'spectate --host ... "
                 "--watch-key-file'; it reads the match's relays but cannot forge a player's message)\n",
                 tool_name().c_str(), a.watch_key_of.c_str(), a.out.c_str());
    return kExitOk;
  }
  if (!a.match_key.empty()) {
    if (!rollback::write_match_key_file(a.match_key, rollback::random_match_key(), error))
      return report_error(false, kExitBadInput, error);
    std::fprintf(stderr, "%s keygen: wrote the match key %s (give the same file to every peer: --key-file)\n",
                 tool_name().c_str(), a.match_key.c_str());
    return kExitOk;
  }
  rollback::PeerIdentity id;
  if (!a.public_of.empty()) {
    if (!rollback::read_peer_identity_file(a.public_of, id, error)) return report_error(false, kExitBadInput, error);
  } else {
    if (!rollback::make_peer_identity(id))
      return report_error(false, kExitBadInput, "keygen: this build has no libsodium: it cannot make key pairs");
    if (!rollback::write_peer_identity_file(a.identity, id, error)) return report_error(false, kExitBadInput, error);
    std::fprintf(stderr, "%s keygen: wrote the identity %s (this peer's secret: --identity-file); its public key "
                 "(a line of --peer-keys) is on stdout\n", tool_name().c_str(), a.identity.c_str());
  }
  std::printf("%s\n", rollback::key_hex(id.public_key).c_str());
  return kExitOk;
}
}  // namespace

Command add_keygen(CLI::App& root) {
  auto a = std::make_shared<KeygenArgs>();
  CLI::App* app = root.add_subcommand("keygen", "Make the keys of an authenticated match (per-peer identities or a match key)");
  app->add_option("--identity", a->identity,
                  "Write a new identity (a peer's secret key, for 'peer --identity-file') to this file and print its "
                  "public key (a line of the --peer-keys file)");
  app->add_option("--match-key", a->match_key,
                  "Write a new match key (for 'peer --key-file': one secret shared by every peer) to this file");
  app->add_option("--public-of", a->public_of, "Print the public key of an existing identity file");
  app->add_option("--watch-key-of", a->watch_key_of,
                  "Derive the watch key of this match key file (what a match's relays and their watchers use: "
                  "'spectate --watch-key-file'; it cannot forge a player's message) into --out");
  app->add_option("--out", a->out, "With --watch-key-of: the new watch key file");
  app->footer("A match with per-peer authentication (4 peers):\n"
              "  for i in 0 1 2 3; do " + tool_name() + " keygen --identity p$i.id >> match.keys; done\n"
              "  " + tool_name() + " peer --sim skirmish --id 0 --identity-file p0.id --peer-keys match.keys --peers ...\n"
              "Each peer keeps its own .id file; match.keys (public) goes to every peer. Files are never overwritten.");
  return {app, [a] { return keygen_cmd(*a); }};
}

}  // namespace lockstep::cli
