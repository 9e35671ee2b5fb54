/* rmp_info: what this build and this machine offer, and every parameter. */
#include <stdio.h>
#include <string.h>

#include "bootstrap.h"
#include "config.h"
#include "rmpi.h"
#include "topo.h"
#include "transport.h"

static void info_transports(void)
{
    printf("Transports (RMP_TRANSPORTS order; self is always used for a rank's own messages):\n");
    static const char *const all[] = {"shm", "verbs", "tcp"};
    for (size_t i = 0; i < 3; i++) {
        const rmpi_tl_iface_t *t = NULL;
        for (const rmpi_tl_iface_t *const *p = rmpi_transports; *p; p++)
            if (strcmp((*p)->name, all[i]) == 0)
                t = *p;
        char why[256] = "";
        if (!t)
            printf("  %-6s not built into this library\n", all[i]);
        else if (t->query(why, sizeof(why)) == RMP_SUCCESS)
            printf("  %-6s built, usable here\n", all[i]);
        else
            printf("  %-6s built, NOT usable here: %s\n", all[i], why);
    }
}

static void info_params(void)
{
    printf("Parameters (environment variables):\n");
    for (const rmpi_param_t *p = rmpi_params; p->name; p++) {
        char cur[256];
        rmpi_config_format(&rmpi_cfg, p, cur, sizeof(cur));
        printf("  %-24s default '%s', current '%s'\n      %s%s%s\n", p->name, p->defval, cur,
               p->help, p->choices ? "; one of " : "", p->choices ? p->choices : "");
    }
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: rmp_info [--params] [--help]\n"
                   "Prints the version, transports, topology and every RMP_* parameter.\n");
            return 0;
        } else if (strcmp(argv[i], "--params") != 0) {
            fprintf(stderr, "rmp_info: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    int rc = rmpi_config_load();
    printf("rmp %s\n", RMP_VERSION);
    printf("  PMIx:  %s\n", rmpi_boot_version());
    printf("  hwloc: %s\n", rmpi_topo_hwloc_version());
    char topo[256] = "unknown";
    rmpi_topo_summary(topo, sizeof(topo));
    printf("Topology: %s\n", topo);
    info_transports();
    info_params();
    return rc == RMP_SUCCESS ? 0 : 1;
}
