package io.rdmaverbs.verbs.connection;

import java.net.InetSocketAddress;
import java.util.Objects;

import io.rdmaverbs.verbs.CmEvent;
import io.rdmaverbs.verbs.CmId;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.attr.CmConnectionParams;

import org.jspecify.annotations.Nullable;

/**
 * A connection request ({@code RDMA_CM_EVENT_CONNECT_REQUEST}) handed to a {@link ConnectionHandler}:
 * who asks, with what private data; {@link #accept()} makes the {@link Connection}, {@link #reject} refuses
 * it. Until either, it holds its listener (a strict close of the listener refuses, naming it).
 */
public final class ConnectionRequest {

    private final Connections owner;
    private final ConnectionListener listener;
    private final CmId id;
    private final byte[] privateData;
    private final @Nullable Hello hello;
    private final String name;
    private final Lane lane;
    private volatile @Nullable Connection connection;
    private volatile boolean answered;

    ConnectionRequest(Connections owner, ConnectionListener listener, CmId id, byte[] privateData,
            @Nullable Hello hello, String name, Lane lane) {
        this.owner = owner;
        this.listener = listener;
        this.id = id;
        this.privateData = privateData;
        this.hello = hello;
        this.name = name;
        this.lane = lane;
    }

    public ConnectionListener listener() {
        return listener;
    }

    /** The request's own CM id, in role {@link io.rdmaverbs.verbs.CmIdRole#PASSIVE} until answered. */
    public CmId cmId() {
        return id;
    }

    public @Nullable InetSocketAddress peerAddress() {
        return id.peerAddress();
    }

    public @Nullable InetSocketAddress localAddress() {
        return id.localAddress();
    }

    /**
     * A copy of the requester's private data (zero-padded to the transport's 56 bytes; after the session's
     * hello, which is not part of it, for a listener with sessions).
     */
    public byte[] privateData() {
        return privateData.clone();
    }

    public boolean isAnswered() {
        return answered;
    }

    /** {@link #accept(byte[])} without private data. */
    public Connection accept() {
        return accept(new byte[0]);
    }

    /**
     * Creates the connection's resources on the request's device context, posts its receive buffers and
     * accepts ({@code rdma_accept(3)}, at most 196 bytes of private data): the connection is
     * {@link ConnectionState#CONNECTING} until ESTABLISHED. On a failure nothing of it is left.
     */
    public synchronized Connection accept(byte[] acceptPrivateData) {
        Objects.requireNonNull(acceptPrivateData, "acceptPrivateData");
        requireUnanswered("accept");
        ListenSpec spec = listener.spec();
        int max = CmConnectionParams.MAX_ACCEPT_PRIVATE_DATA - (spec.session() == null ? 0 : Hello.BYTES);
        if (acceptPrivateData.length > max) {
            throw new IllegalArgumentException("an accept carries at most " + max + " bytes of private data "
                    + "(rdma_accept(3), RDMA_PS_TCP" + (spec.session() == null ? "" : ", less the session's hello")
                    + "), got " + acceptPrivateData.length);
        }
        Connection c = Connection.open(owner, name, id, spec.connection(), lane, privateData, spec.session(), hello);
        connection = c;
        try {
            byte[] data = spec.session() == null ? acceptPrivateData
                    : Hello.of(spec.connection(), c.session().nonce()).prefix(acceptPrivateData);
            id.accept(spec.connection().parameters().withPrivateData(data));
        } catch (RuntimeException e) {
            connection = null;
            try {
                c.close();
            } catch (VerbsException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        id.name(name);
        answered = true;
        listener.answered(this);
        owner.adopt(c);
        return c;
    }

    /** {@link #reject(byte[])} without private data. */
    public void reject() {
        reject(new byte[0]);
    }

    /**
     * {@code rdma_reject(3)}: the requester gets REJECTED with this private data (at most 148 bytes); the
     * request's id is released.
     */
    public synchronized void reject(byte[] rejectPrivateData) {
        Objects.requireNonNull(rejectPrivateData, "rejectPrivateData");
        requireUnanswered("reject");
        id.reject(rejectPrivateData);
        answered = true;
        listener.answered(this);
        owner.release(id);
    }

    /** The handler threw or the listener is closing: reject quietly and release the id. */
    synchronized void rejectQuietly() {
        if (answered) {
            return;
        }
        answered = true;
        listener.answered(this);
        try {
            if (id.isOpen()) {
                id.reject(new byte[0]);
            }
        } catch (RuntimeException e) {
            // The id's release below still sends the REJ.
        }
        owner.release(id);
    }

    private void requireUnanswered(String verb) {
        if (answered || !id.isOpen() || id.role() != io.rdmaverbs.verbs.CmIdRole.PASSIVE) {
            throw new IllegalStateException("the request " + name + " was already answered (or rejected when its "
                    + "listener closed); cannot " + verb + " it");
        }
    }

    /** An event of the request's id, on the loop thread: the accepted connection's, once there is one. */
    void eventArrived(CmEvent event) {
        Connection c = connection;
        if (c != null) {
            c.eventArrived(event);
        }
    }

    Lane lane() {
        return lane;
    }

    @Override
    public String toString() {
        return "connection request '" + name + "' (" + id + ")";
    }
}
