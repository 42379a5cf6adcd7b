/*
 * What C puts in a struct sockaddr_in / sockaddr_in6 for an address, for SockaddrEncodingTest to
 * compare byte for byte with the Java encoding: inet_pton for the address, htons for the port,
 * if_nametoindex for an IPv6 scope given as an interface name. Prints the sockaddr_storage's bytes
 * as lowercase hex on one line.
 *
 * Usage: sockaddr_bytes <address> <port> [<interface>]
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

int main(int argc, char **argv)
{
	struct sockaddr_storage storage;
	struct sockaddr_in *sin = (struct sockaddr_in *)&storage;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&storage;
	const unsigned char *bytes = (const unsigned char *)&storage;
	size_t i;

	if (argc < 3)
		return 2;
	memset(&storage, 0, sizeof(storage));
	if (inet_pton(AF_INET, argv[1], &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons((unsigned short)atoi(argv[2]));
	} else if (inet_pton(AF_INET6, argv[1], &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((unsigned short)atoi(argv[2]));
		if (argc > 3) {
			sin6->sin6_scope_id = if_nametoindex(argv[3]);
			if (sin6->sin6_scope_id == 0)
				return 3;
		}
	} else {
		return 4;
	}
	for (i = 0; i < sizeof(storage); i++)
		printf("%02x", bytes[i]);
	printf("\n");
	return 0;
}
