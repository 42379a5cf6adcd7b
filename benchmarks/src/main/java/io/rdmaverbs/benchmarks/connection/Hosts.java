package io.rdmaverbs.benchmarks.connection;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.provider.ffm.NativeVerbsProvider;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedNetwork;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

/**
 * Where a connection benchmark runs: on the native provider of this host (one side of the two guests), or
 * as both sides in one JVM on two simulated hosts joined by one {@link SimulatedNetwork}.
 */
final class Hosts {

    private Hosts() {
    }

    static Verbs nativeVerbs() {
        return Verbs.using(NativeVerbsProvider.load());
    }

    /** {@code host} as rdma_getaddrinfo takes it; an IPv6 link-local address keeps its {@code %eth0} scope. */
    static InetSocketAddress address(String host, int port) {
        try {
            return new InetSocketAddress(InetAddress.getByName(host), port);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an address: " + host, e);
        }
    }

    /** Two simulated rxe hosts on one network: the server's graph, the client's, and the server's address. */
    record SimulatedPair(Verbs server, Verbs client, InetAddress serverAddress) implements AutoCloseable {

        static SimulatedPair create() {
            SimulatedNetwork network = SimulatedNetwork.create();
            SimulatedProvider serverHost = SimulatedProvider.on(network, DeviceProfile.rxe("rxe0"));
            SimulatedProvider clientHost = SimulatedProvider.on(network, DeviceProfile.rxe("rxe1"));
            return new SimulatedPair(Verbs.using(serverHost), Verbs.using(clientHost),
                    serverHost.addresses("rxe0").getFirst());
        }

        @Override
        public void close() {
            client.close();
            server.close();
        }
    }
}
