/* SPDX-License-Identifier: BSD-3-Clause */
/* Interface selection for the tcp transport: RMP_TCP_IF names an interface
 * or a CIDR block; by default the first non-loopback IPv4 interface that is
 * up, never a container or VM bridge (their addresses do not reach other
 * hosts), and loopback only when every peer is on this node. */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcp.h"

static bool tcp_if_is_bridge(const char *name)
{
    static const char *const prefixes[] = {"docker", "virbr", "br-", "lxcbr", "cni", "flannel"};
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
            return true;
    return false;
}

/* "10.0.0.0/8" -> network and mask (host order). 0 on success. */
static int tcp_if_parse_cidr(const char *spec, uint32_t *net, uint32_t *mask)
{
    char buf[64];
    const char *slash = strchr(spec, '/');
    if (!slash || (size_t)(slash - spec) >= sizeof(buf))
        return -1;
    memcpy(buf, spec, (size_t)(slash - spec));
    buf[slash - spec] = '\0';
    struct in_addr a;
    if (inet_pton(AF_INET, buf, &a) != 1)
        return -1;
    char *end;
    long bits = strtol(slash + 1, &end, 10);
    if (*end || end == slash + 1 || bits < 0 || bits > 32)
        return -1;
    *mask = bits == 0 ? 0 : ~0u << (32 - bits);
    *net = ntohl(a.s_addr) & *mask;
    return 0;
}

int rmpi_tcp_if_pick(const char *spec, bool loopback_ok, struct in_addr *addr, char *name,
                     size_t namelen, char *why, size_t whylen)
{
    uint32_t net = 0, mask = 0;
    bool cidr = spec[0] && strchr(spec, '/');
    if (cidr && tcp_if_parse_cidr(spec, &net, &mask) != 0) {
        snprintf(why, whylen, "RMP_TCP_IF='%s' is not an interface name or an IPv4 CIDR block",
                 spec);
        return RMP_ERR_ARG;
    }
    struct ifaddrs *ifs;
    if (getifaddrs(&ifs) != 0) {
        snprintf(why, whylen, "cannot list network interfaces");
        return RMP_ERR_NOT_SUPPORTED;
    }
    const struct ifaddrs *pick = NULL, *lo = NULL;
    for (const struct ifaddrs *i = ifs; i && !pick; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP))
            continue;
        uint32_t a = ntohl(((const struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr);
        if (cidr) {
            if ((a & mask) == net)
                pick = i;
        } else if (spec[0]) {
            if (strcmp(i->ifa_name, spec) == 0)
                pick = i;
        } else if (i->ifa_flags & IFF_LOOPBACK) {
            if (!lo)
                lo = i;
        } else if (!tcp_if_is_bridge(i->ifa_name) && (i->ifa_flags & IFF_RUNNING)) {
            pick = i;
        }
    }
    /* Loopback is faster and always there; it is right only when nobody is
     * elsewhere. */
    if (!spec[0] && loopback_ok && lo)
        pick = lo;
    int rc = RMP_SUCCESS;
    if (pick) {
        *addr = ((const struct sockaddr_in *)pick->ifa_addr)->sin_addr;
        snprintf(name, namelen, "%s", pick->ifa_name);
    } else {
        if (spec[0])
            snprintf(why, whylen, "no IPv4 interface that is up matches RMP_TCP_IF='%s'", spec);
        else
            snprintf(why, whylen, "no IPv4 interface that is up other than loopback and "
                                  "bridges (set RMP_TCP_IF)");
        rc = RMP_ERR_NOT_SUPPORTED;
    }
    freeifaddrs(ifs);
    return rc;
}
