#ifndef CMicroHTTPD_SHIM_H
#define CMicroHTTPD_SHIM_H
#include <microhttpd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Swift cannot call the variadic MHD_start_daemon; these wrappers fix the
 * option list the HTTPServer module needs. */

/** Settings passed to storefront_mhd_start; 0 leaves MHD's default. */
struct storefront_mhd_options {
    unsigned int thread_pool_size;
    unsigned int connection_limit;
    unsigned int connection_timeout_seconds;
    unsigned int per_ip_connection_limit;
    size_t connection_memory_limit;
    size_t connection_memory_increment;
    unsigned int listen_backlog;
};

typedef void *(*storefront_mhd_uri_log_cb)(void *cls, const char *uri, struct MHD_Connection *connection);

/** Starts a daemon bound to the IPv4 address `bind_address` (dotted quad) and `port` (0 = any).
 *  Returns NULL when the address does not parse or MHD refuses to start. */
static inline struct MHD_Daemon *storefront_mhd_start(
    unsigned int flags, const char *bind_address, uint16_t port,
    const struct storefront_mhd_options *options,
    MHD_AccessHandlerCallback handler, void *handler_cls,
    MHD_RequestCompletedCallback completed, void *completed_cls,
    storefront_mhd_uri_log_cb uri_log, void *uri_log_cls)
{
    struct sockaddr_in address;
    memset(&address, 0, sizeof(address));
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    if (inet_pton(AF_INET, bind_address, &address.sin_addr) != 1) {
        return NULL;
    }
    return MHD_start_daemon(
        flags, port, NULL, NULL, handler, handler_cls,
        MHD_OPTION_SOCK_ADDR, (const struct sockaddr *) &address,
        MHD_OPTION_THREAD_POOL_SIZE, options->thread_pool_size,
        MHD_OPTION_CONNECTION_LIMIT, options->connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, options->connection_timeout_seconds,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, options->per_ip_connection_limit,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, options->connection_memory_limit,
        MHD_OPTION_CONNECTION_MEMORY_INCREMENT, options->connection_memory_increment,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, options->listen_backlog,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
        MHD_OPTION_URI_LOG_CALLBACK, uri_log, uri_log_cls,
        MHD_OPTION_END);
}

/** The port the daemon really listens on (useful after binding port 0); 0 if unknown. */
static inline uint16_t storefront_mhd_bind_port(struct MHD_Daemon *daemon)
{
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/** Writes the client's address as text into `buffer`; returns 0 on success. */
static inline int storefront_mhd_client_address(struct MHD_Connection *connection, char *buffer, size_t length)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return -1;
    const struct sockaddr *address = info->client_addr;
    const void *raw = NULL;
    if (address->sa_family == AF_INET) {
        raw = &((const struct sockaddr_in *) address)->sin_addr;
    } else if (address->sa_family == AF_INET6) {
        raw = &((const struct sockaddr_in6 *) address)->sin6_addr;
    } else {
        return -1;
    }
    return inet_ntop(address->sa_family, raw, buffer, (socklen_t) length) == NULL ? -1 : 0;
}

/** Stops accepting (MHD_quiesce_daemon) and closes the returned listen socket so new
 *  connections are refused at once; returns 0 on success. */
static inline int storefront_mhd_quiesce(struct MHD_Daemon *daemon)
{
    MHD_socket fd = MHD_quiesce_daemon(daemon);
    if (fd == MHD_INVALID_SOCKET) return -1;
    close(fd);
    return 0;
}

#endif
