/* SPDX-License-Identifier: BSD-3-Clause */
/* rmp_rsh: the remote shell of the two-guest cluster (tests/verbs-vm/cluster), standing
 * in for ssh as Open MPI's plm_rsh_agent. The guests have no sshd; this is the smallest
 * thing that gives mpirun what it needs from an agent:
 *   rmp_rsh -d PORT          server (one per guest): runs each connection's command line
 *                            with /bin/sh -c in its own process group, output to the
 *                            connection; kills the group when the client goes away
 *   rmp_rsh HOST CMD...      client: runs CMD on HOST, relays its output, exits with its
 *                            status (255 when HOST is unreachable or stops answering)
 * The client's connection uses TCP keepalive: a guest that vanishes (its QEMU killed) ends
 * the client within RMP_CLUSTER_RSH_KEEPALIVE seconds (default 30), which is how mpirun
 * learns that a node is lost (long after rmp's own detection: the node-loss checks).
 * Short keepalives declared a guest that the loaded host left unscheduled for a few
 * seconds lost.
 * The server's side stays at 30 s (it only cleans up after a client that vanished).
 * Not a security boundary: it runs inside throw-away test guests only. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define RSH_PORT "7222"
#define RSH_MARK "\036RMP_RSH_EXIT="

/* Keepalive ending a connection whose peer is silent for about t seconds. */
static void rsh_keepalive(int fd, int t)
{
    int one = 1, idle = t / 3 > 0 ? t / 3 : 1, intvl = 1, cnt = t - idle > 1 ? t - idle : 1;
    if (cnt > 10) { /* the kernel's probes: at most 10, spread over the rest */
        intvl = (t - idle) / 10;
        cnt = 10;
    }
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* One connection: read the command line, run it, report its status. */
static void rsh_serve(int fd)
{
    char cmd[65536];
    size_t n = 0;
    while (n < sizeof(cmd) - 1) {
        ssize_t r = read(fd, cmd + n, 1);
        if (r <= 0)
            _exit(1);
        if (cmd[n] == '\n')
            break;
        n++;
    }
    cmd[n] = '\0';
    if (n == 0)
        _exit(0); /* a probe */
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
        int null = open("/dev/null", 0);
        dup2(null, 0);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid);
    int status = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            break;
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 100) > 0) {
            char c;
            if (read(fd, &c, 1) <= 0) { /* the client is gone: so is its command */
                kill(-pid, SIGKILL);
                waitpid(pid, &status, 0);
                _exit(0);
            }
        }
    }
    kill(-pid, SIGKILL); /* whatever the command left behind in its group */
    int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    dprintf(fd, "%s%d\n", RSH_MARK, rc);
    _exit(0);
}

static int rsh_server(const char *port)
{
    struct addrinfo hints = {.ai_flags = AI_PASSIVE, .ai_family = AF_INET,
                             .ai_socktype = SOCK_STREAM}, *ai;
    if (getaddrinfo(NULL, port, &hints, &ai) != 0)
        return 1;
    int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (ls < 0 || bind(ls, ai->ai_addr, ai->ai_addrlen) || listen(ls, 64)) {
        perror("rmp_rsh: listen");
        return 1;
    }
    freeaddrinfo(ai);
    signal(SIGCHLD, SIG_IGN); /* connection handlers are reaped by the kernel */
    for (;;) {
        int fd = accept(ls, NULL, NULL);
        if (fd < 0)
            continue;
        rsh_keepalive(fd, 30);
        if (fork() == 0) {
            close(ls);
            signal(SIGCHLD, SIG_DFL);
            rsh_serve(fd);
        }
        close(fd);
    }
}

static int rsh_client(const char *host, int argc, char **argv)
{
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *ai;
    const char *port = getenv("RMP_RSH_PORT") ? getenv("RMP_RSH_PORT") : RSH_PORT;
    if (getaddrinfo(host, port, &hints, &ai) != 0) {
        fprintf(stderr, "rmp_rsh: unknown host %s\n", host);
        return 255;
    }
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen)) {
        fprintf(stderr, "rmp_rsh: %s: %s\n", host, strerror(errno));
        return 255;
    }
    freeaddrinfo(ai);
    const char *ka = getenv("RMP_CLUSTER_RSH_KEEPALIVE");
    rsh_keepalive(fd, ka && atoi(ka) > 0 ? atoi(ka) : 30);
    /* the command line, as ssh builds it: the arguments joined by spaces */
    for (int i = 0; i < argc; i++)
        dprintf(fd, "%s%s", i ? " " : "", argv[i]);
    dprintf(fd, "\n");
    char buf[8192], tail[64];
    size_t mlen = strlen(RSH_MARK), held = 0;
    for (;;) {
        ssize_t r = read(fd, buf, sizeof(buf));
        if (r <= 0) {
            if (held)
                fwrite(tail, 1, held, stdout);
            fprintf(stderr, "rmp_rsh: %s: connection lost\n", host);
            return 255;
        }
        for (ssize_t i = 0; i < r; i++) {
            /* hold back bytes that may be the start of the exit mark */
            tail[held++] = buf[i];
            if (memcmp(tail, RSH_MARK, held < mlen ? held : mlen) != 0) {
                fwrite(tail, 1, held, stdout);
                held = 0;
            } else if (held > mlen && tail[held - 1] == '\n') {
                fflush(stdout);
                return atoi(tail + mlen);
            } else if (held == sizeof(tail) - 1) {
                fwrite(tail, 1, held, stdout);
                held = 0;
            }
        }
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);
    if (argc == 3 && strcmp(argv[1], "-d") == 0)
        return rsh_server(argv[2]);
    if (argc >= 3)
        return rsh_client(argv[1], argc - 2, argv + 2);
    fprintf(stderr, "usage: rmp_rsh -d PORT | rmp_rsh HOST COMMAND...\n");
    return 255;
}
