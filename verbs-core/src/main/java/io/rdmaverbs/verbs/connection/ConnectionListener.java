package io.rdmaverbs.verbs.connection;

import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.rdmaverbs.verbs.ClosePolicy;
import io.rdmaverbs.verbs.CmEvent;
import io.rdmaverbs.verbs.CmId;
import io.rdmaverbs.verbs.attr.CmEventType;

/**
 * A listening CM id ({@code rdma_listen(3)}) whose connection requests go to one {@link ConnectionHandler}.
 * {@link #close()} is strict: refused, touching nothing, while a request is neither accepted nor
 * rejected; {@link #close(ClosePolicy) close(CASCADE)} rejects those first. Connections it accepted
 * outlive it.
 */
public final class ConnectionListener implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(ConnectionListener.class.getName());

    private final Connections owner;
    private final CmId id;
    private final ListenSpec spec;
    private final ConnectionHandler handler;
    private final Set<ConnectionRequest> pending = ConcurrentHashMap.newKeySet();

    ConnectionListener(Connections owner, CmId id, ListenSpec spec, ConnectionHandler handler) {
        this.owner = owner;
        this.id = id;
        this.spec = spec;
        this.handler = handler;
    }

    /** The address listened on, with the port the CM picked for port 0. */
    public InetSocketAddress address() {
        return Objects.requireNonNull(id.localAddress(), "a listening id is bound");
    }

    public ListenSpec spec() {
        return spec;
    }

    public CmId cmId() {
        return id;
    }

    /** The requests handed to the handler and neither accepted nor rejected yet. */
    public List<ConnectionRequest> pendingRequests() {
        return List.copyOf(pending);
    }

    /** A CONNECT_REQUEST, on the loop thread: the request goes to the handler on a lane of its own. */
    void eventArrived(CmEvent event) {
        if (event.type() != CmEventType.CONNECT_REQUEST) {
            return;
        }
        byte[] data = event.privateData();
        Hello hello = null;
        if (spec.session() != null) {
            try {
                hello = Hello.parse(data);
            } catch (ProtocolException e) {
                refuse(event.cmId(), e);
                return;
            }
            data = Hello.application(data);
        }
        ConnectionRequest request = new ConnectionRequest(owner, this, event.cmId(), data, hello, owner.nextName(),
                owner.newLane());
        pending.add(request);
        owner.track(event.cmId(), request::eventArrived);
        request.lane().execute(() -> handle(request));
    }

    /**
     * A requester that does not speak this listener's session protocol is rejected before any handler sees
     * it, with private data saying why (its connect fails with that text).
     */
    private void refuse(CmId request, ProtocolException why) {
        LOG.log(Level.INFO, () -> "rejecting the request " + request + " on " + id + ": " + why.getMessage());
        try {
            request.reject(Hello.rejection(why));
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, () -> "rejecting " + request + " failed", e);
        }
        owner.release(request);
    }

    private void handle(ConnectionRequest request) {
        try {
            handler.onRequest(request);
        } catch (Exception | Error e) {
            LOG.log(Level.WARNING, () -> "the connection handler of " + id + " threw on " + request
                    + "; the request is rejected", e);
            request.rejectQuietly();
            if (e instanceof Error error && !(e instanceof AssertionError)) {
                throw error;
            }
        }
    }

    void answered(ConnectionRequest request) {
        pending.remove(request);
    }

    /** A strict close: refused while requests are pending, naming each (nothing is touched then). */
    @Override
    public void close() {
        close(ClosePolicy.STRICT);
    }

    /** Closes the listening id under {@code policy}; CASCADE rejects and releases the pending requests first. */
    public void close(ClosePolicy policy) {
        if (policy == ClosePolicy.CASCADE) {
            pendingRequests().forEach(ConnectionRequest::rejectQuietly);
        }
        id.close(policy);
        owner.forget(this);
    }

    @Override
    public String toString() {
        return "connection listener on " + id;
    }
}
