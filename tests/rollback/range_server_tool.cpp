// range_server: a static file server with Range support on 127.0.0.1, standing in for the
// web server or CDN that serves a live recording (tests/rollback/udp_match.sh, follow_http).
// cpp-httplib's mount point answers Range requests (206, 416) from the file as it is at each
// request, so a growing recording is served as it grows.
//   range_server DIR PORT_FILE
#include <httplib.h>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: range_server DIR PORT_FILE\n");
    return 2;
  }
  httplib::Server server;
  if (!server.set_mount_point("/", argv[1])) {
    std::fprintf(stderr, "range_server: cannot serve %s\n", argv[1]);
    return 2;
  }
  const int port = server.bind_to_any_port("127.0.0.1");
  if (port <= 0) return 2;
  const std::string tmp = std::string(argv[2]) + ".tmp";
  if (std::FILE* f = std::fopen(tmp.c_str(), "w")) {
    std::fprintf(f, "%d\n", port);
    std::fclose(f);
    std::rename(tmp.c_str(), argv[2]);
  }
  return server.listen_after_bind() ? 0 : 1;
}
