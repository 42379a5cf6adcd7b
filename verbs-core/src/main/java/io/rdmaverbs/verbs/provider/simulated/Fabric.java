package io.rdmaverbs.verbs.provider.simulated;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.AsyncEventType;
import io.rdmaverbs.verbs.attr.Gid;
import io.rdmaverbs.verbs.attr.LinkLayer;
import io.rdmaverbs.verbs.attr.QpState;
import io.rdmaverbs.verbs.attr.QpType;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WcOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import io.rdmaverbs.verbs.provider.AsyncEventRecord;

import org.jspecify.annotations.Nullable;

/**
 * The wire between the simulated devices, and the requester/responder logic of their transports. A
 * send WR runs to completion when it is posted (the simulation has no wire delay): its bytes move from
 * the requester's registered memory into the responder's, and both sides' completions are written
 * before {@code postSend} returns. The exception is an RC/XRC SEND that finds no receive WR: with
 * {@code rnr_retry} 7 (infinite) the requester keeps retrying, so the WR stays at the head of its send
 * queue, stalling the WRs behind it, until a receive WR is posted or the path breaks.
 *
 * <p>Every method here runs with all device locks held ({@link #lockAll}).
 */
final class Fabric {

    private enum Progress { DONE, HELD }

    private record Endpoint(SimDevice device, int port) {
    }

    private static final int GRH_BYTES = 40;
    private static final int QKEY_CONTROLLED = 0x8000_0000;

    /**
     * The devices of every provider on this fabric, in join order; replaced (never changed) by
     * {@link #join}, and only while all the old list's locks are held, so a holder of all locks sees a
     * stable list.
     */
    private volatile List<SimDevice> devices;
    /** Requesters whose head WR waits for a receive WR (RNR with infinite retry). */
    private final Set<KernelQp> stalled = new LinkedHashSet<>();

    Fabric(List<SimDevice> devices) {
        this.devices = List.copyOf(devices);
    }

    /**
     * Adds the devices of another provider: two hosts on one wire (a {@link SimulatedNetwork}). Refuses a
     * device whose GUID (and so whose GIDs) a joined device already has: two ports with one address.
     */
    void join(List<SimDevice> added) {
        lockAll();
        List<SimDevice> before = devices;
        try {
            for (SimDevice d : added) {
                for (SimDevice e : before) {
                    if (e.profile.guid() == d.profile.guid()) {
                        throw new IllegalArgumentException("device " + d.name() + " has the GUID of " + e.name()
                                + ", which is already on this network (a device profile's GUID derives from its"
                                + " name): give one of them another name or GUID");
                    }
                }
            }
            List<SimDevice> all = new ArrayList<>(before);
            all.addAll(added);
            devices = List.copyOf(all);
        } finally {
            for (int i = before.size() - 1; i >= 0; i--) {
                before.get(i).lock.unlock();
            }
        }
    }

    /**
     * Takes every device lock, always in device order, so two fabric operations cannot deadlock; retried
     * when a {@link #join} replaced the list meanwhile.
     */
    void lockAll() {
        while (true) {
            List<SimDevice> snapshot = devices;
            for (SimDevice device : snapshot) {
                device.lock.lock();
            }
            if (devices == snapshot) {
                return;
            }
            for (int i = snapshot.size() - 1; i >= 0; i--) {
                snapshot.get(i).lock.unlock();
            }
        }
    }

    void unlockAll() {
        List<SimDevice> snapshot = devices;
        for (int i = snapshot.size() - 1; i >= 0; i--) {
            snapshot.get(i).lock.unlock();
        }
    }

    // ---- send queue processing ---------------------------------------------------------------

    /** Queues a posted WR and runs the send queue if the QP may send. */
    void submit(KernelQp qp, PostedSend wr) {
        qp.sendQueue.addLast(wr);
        if (qp.state == QpState.RTS) {
            pump(qp);
        } else if (qp.state == QpState.ERR || qp.state == QpState.SQE) {
            flushSend(qp);
        }
    }

    /** Runs a QP's send queue until it is empty or its head must wait. */
    void pump(KernelQp qp) {
        stalled.remove(qp);
        while (qp.state == QpState.RTS && !qp.destroyed) {
            PostedSend wr = qp.sendQueue.pollFirst();
            if (wr == null) {
                return;
            }
            if (execute(qp, wr) == Progress.HELD) {
                qp.sendQueue.addFirst(wr);
                stalled.add(qp);
                return;
            }
        }
    }

    /** Retries every stalled requester: a receive WR was posted, or a path changed. */
    void pumpStalled() {
        for (KernelQp qp : List.copyOf(stalled)) {
            pump(qp);
        }
    }

    void forget(KernelQp qp) {
        stalled.remove(qp);
    }

    /** Moves a QP to the error state and flushes its queues, as any error completion does. */
    void moveToError(KernelQp qp) {
        qp.state = QpState.ERR;
        stalled.remove(qp);
        flushSend(qp);
        flushReceive(qp);
    }

    /** RESET drops the queued WRs without completions. */
    void reset(KernelQp qp) {
        stalled.remove(qp);
        qp.sendQueue.clear();
        qp.recvQueue.clear();
    }

    private void flushSend(KernelQp qp) {
        PostedSend wr;
        while ((wr = qp.sendQueue.pollFirst()) != null) {
            // Error completions are written whether or not the WR was signaled.
            complete(qp.sendCq, Completion.failed(wr.wrId(), WcStatus.WR_FLUSH_ERR, qp.qpNum), false, false);
        }
    }

    void flushReceive(KernelQp qp) {
        PostedRecv wr;
        while ((wr = qp.recvQueue.pollFirst()) != null) {
            complete(qp.recvCq, Completion.failed(wr.wrId(), WcStatus.WR_FLUSH_ERR, qp.qpNum), true, false);
        }
    }

    private Progress execute(KernelQp s, PostedSend wr) {
        if (!allowed(s.type, wr.opcode())) {
            // rxe's requester finds no packet opcode for the pair and fails the WQE.
            return failSend(s, wr, WcStatus.LOC_QP_OP_ERR);
        }
        if (wr.length() > s.device.profile.port(s.port).maxMessageSize()) {
            return failSend(s, wr, WcStatus.LOC_LEN_ERR);
        }
        return s.type == QpType.UD ? sendDatagram(s, wr) : sendConnected(s, wr);
    }

    private static boolean allowed(QpType type, SendOpcode opcode) {
        return switch (type) {
            case UD -> opcode == SendOpcode.SEND || opcode == SendOpcode.SEND_WITH_IMM;
            case UC -> opcode != SendOpcode.RDMA_READ && opcode != SendOpcode.ATOMIC_CMP_AND_SWP
                    && opcode != SendOpcode.ATOMIC_FETCH_AND_ADD;
            case RC, XRC_SEND -> true;
            case XRC_RECV -> false;
        };
    }

    // ---- connected transports (RC, UC, XRC) ----------------------------------------------------

    private Progress sendConnected(KernelQp s, PostedSend wr) {
        boolean reliable = s.type != QpType.UC;
        SendOpcode op = wr.opcode();
        boolean readsRemote = op == SendOpcode.RDMA_READ || op == SendOpcode.ATOMIC_CMP_AND_SWP
                || op == SendOpcode.ATOMIC_FETCH_AND_ADD;
        byte[] payload = null;
        if (readsRemote) {
            if (!localDestinationValid(s, wr)) {
                return failSend(s, wr, s.device.driver().localKeyFault());
            }
        } else {
            payload = gather(s, wr);
            if (payload == null) {
                return failSend(s, wr, s.device.driver().localKeyFault());
            }
        }
        KernelQp r = connectedPeer(s);
        if (r == null) {
            // Packets go nowhere: RC retries until retry_cnt is exhausted, UC just loses them.
            return reliable ? failSend(s, wr, WcStatus.RETRY_EXC_ERR) : completeSend(s, wr, wr.length());
        }
        SimSrq srq = r.srq;
        SimPd targetPd = r.pd;
        if (s.type == QpType.XRC_SEND) {
            srq = r.device.xrcSrqs.get(wr.xrcRemoteSrqNum());
            if (srq == null || srq.isDestroyed() || srq.xrcd == null || srq.xrcd.domain != r.domain) {
                // Assumption (no XRC device observed): the target NAKs an SRQ number outside its domain
                // as an invalid request.
                return failSend(s, wr, WcStatus.REM_INV_REQ_ERR);
            }
            targetPd = srq.pd;
        }
        return switch (op) {
            case SEND, SEND_WITH_IMM -> deliverSend(s, wr, payload, r, srq, targetPd, reliable);
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> deliverWrite(s, wr, payload, r, srq, targetPd, reliable);
            case RDMA_READ -> deliverRead(s, wr, r, targetPd);
            case ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD -> deliverAtomic(s, wr, r, targetPd);
        };
    }

    private Progress deliverSend(KernelQp s, PostedSend wr, byte[] payload, KernelQp r, @Nullable SimSrq srq,
            @Nullable SimPd targetPd, boolean reliable) {
        PostedRecv rw = nextReceive(r, srq);
        if (rw == null) {
            return receiverNotReady(s, wr, reliable);
        }
        WcStatus fault = scatter(r.device, targetPd, rw, false, null, payload);
        if (fault != null) {
            return responderFault(s, wr, r, srq, rw, fault, reliable);
        }
        consumeReceive(r, srq);
        boolean imm = wr.opcode().carriesImmediate();
        complete(r.receiveCompletionQueue(srq), receiveCompletion(s, r, rw, WcOpcode.RECV, payload.length, imm, wr,
                false), true, wr.solicited());
        return completeSend(s, wr, payload.length);
    }

    private Progress deliverWrite(KernelQp s, PostedSend wr, byte[] payload, KernelQp r, @Nullable SimSrq srq,
            @Nullable SimPd targetPd, boolean reliable) {
        if (!r.allows(AccessFlag.REMOTE_WRITE)) {
            return reliable ? responderRefused(s, wr, r, r.device.driver().remoteAccessNotEnabled())
                    : completeSend(s, wr, payload.length);
        }
        boolean imm = wr.opcode().carriesImmediate();
        PostedRecv rw = null;
        if (imm) {
            rw = nextReceive(r, srq);
            if (rw == null) {
                return receiverNotReady(s, wr, reliable);
            }
        }
        SimMr target = remoteRegion(r.device, wr.rkey(), targetPd, AccessFlag.REMOTE_WRITE, wr.remoteAddress(),
                payload.length);
        if (target == null || !write(target, wr.remoteAddress(), payload)) {
            return reliable ? responderRefused(s, wr, r, WcStatus.REM_ACCESS_ERR) : completeSend(s, wr, payload.length);
        }
        if (rw != null) {
            consumeReceive(r, srq);
            complete(r.receiveCompletionQueue(srq), receiveCompletion(s, r, rw, WcOpcode.RECV_RDMA_WITH_IMM,
                    payload.length, true, wr, false), true, wr.solicited());
        }
        return completeSend(s, wr, payload.length);
    }

    private Progress deliverRead(KernelQp s, PostedSend wr, KernelQp r, @Nullable SimPd targetPd) {
        if (!r.allows(AccessFlag.REMOTE_READ)) {
            return responderRefused(s, wr, r, r.device.driver().remoteAccessNotEnabled());
        }
        long length = wr.length();
        SimMr source = remoteRegion(r.device, wr.rkey(), targetPd, AccessFlag.REMOTE_READ, wr.remoteAddress(),
                length);
        byte[] data = source == null ? null : read(source, wr.remoteAddress(), (int) length);
        if (data == null) {
            return responderRefused(s, wr, r, WcStatus.REM_ACCESS_ERR);
        }
        if (!scatterLocal(s, wr, data)) {
            return failSend(s, wr, s.device.driver().localKeyFault());
        }
        return completeSend(s, wr, length);
    }

    /**
     * Both atomics operate on 64 bits in the responder's memory (in the responder's byte order, as
     * rxe does on x86) and return the original value into the requester's buffer.
     */
    private Progress deliverAtomic(KernelQp s, PostedSend wr, KernelQp r, @Nullable SimPd targetPd) {
        if (!r.allows(AccessFlag.REMOTE_ATOMIC)) {
            return responderRefused(s, wr, r, r.device.driver().remoteAccessNotEnabled());
        }
        SimMr target = remoteRegion(r.device, wr.rkey(), targetPd, AccessFlag.REMOTE_ATOMIC, wr.remoteAddress(), 8);
        byte[] original = target == null ? null : read(target, wr.remoteAddress(), 8);
        if (original == null) {
            return responderRefused(s, wr, r, WcStatus.REM_ACCESS_ERR);
        }
        long before = java.nio.ByteBuffer.wrap(original).order(java.nio.ByteOrder.nativeOrder()).getLong();
        long after = wr.opcode() == SendOpcode.ATOMIC_FETCH_AND_ADD ? before + wr.compareAdd()
                : before == wr.compareAdd() ? wr.swap() : before;
        if (after != before) {
            write(target, wr.remoteAddress(), java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.nativeOrder())
                    .putLong(after).array());
        }
        if (!scatterLocal(s, wr, original)) {
            return failSend(s, wr, s.device.driver().localKeyFault());
        }
        return completeSend(s, wr, 8);
    }

    /** No receive WR at the responder: RC retries (forever with rnr_retry 7), UC drops the message. */
    private Progress receiverNotReady(KernelQp s, PostedSend wr, boolean reliable) {
        if (!reliable) {
            return completeSend(s, wr, wr.length());
        }
        // The responder NAKs (RNR): the requester's device counts it, as rxe's hw_counters/rcvd_rnr_err does.
        s.device.rnrNakReceived();
        if (s.rnrRetry == 7) {
            return Progress.HELD;
        }
        // rnr_retry times min_rnr_timer is milliseconds on a real wire; here it runs out at once.
        return failSend(s, wr, WcStatus.RNR_RETRY_EXC_ERR);
    }

    /** The responder consumed a receive WR and failed it: both sides complete in error (RC). */
    private Progress responderFault(KernelQp s, PostedSend wr, KernelQp r, @Nullable SimSrq srq, PostedRecv rw,
            WcStatus status, boolean reliable) {
        consumeReceive(r, srq);
        complete(r.receiveCompletionQueue(srq), Completion.failed(rw.wrId(), status, r.qpNum), true, false);
        moveToError(r);
        return reliable ? failSend(s, wr, r.device.driver().requesterStatusFor(status))
                : completeSend(s, wr, wr.length());
    }

    /** A class C responder error (access): the responder NAKs and moves to the error state too. */
    private Progress responderRefused(KernelQp s, PostedSend wr, KernelQp r, WcStatus status) {
        moveToError(r);
        return failSend(s, wr, status);
    }

    /**
     * The responder QP the requester's path reaches, or null when packets would be dropped: path or port
     * down, no such QP, wrong type or port, not ready to receive, or (rxe's {@code check_addr}) a
     * responder whose own path does not point back at the requester.
     */
    private @Nullable KernelQp connectedPeer(KernelQp s) {
        AddressVector path = s.path;
        if (path == null || s.device.fatal || !s.device.portActive(s.port)) {
            return null;
        }
        LinkLayer linkLayer = s.device.profile.port(s.port).linkLayer();
        Endpoint end = resolve(path, linkLayer);
        if (end == null || end.device.fatal || !end.device.portActive(end.port)) {
            return null;
        }
        KernelQp r = end.device.qps.get(s.destQpNum);
        if (r == null || r.destroyed || r.port != end.port || !r.canReceive() || !connects(s.type, r.type)) {
            return null;
        }
        if (end.device.driver().checksConnectedSourceAddress() && path.globalRoute() != null) {
            AddressVector back = r.path;
            if (back == null || back.globalRoute() == null) {
                return null;
            }
            Gid requester = s.device.profile.port(s.port).gid(path.globalRoute().sourceGidIndex());
            Gid responder = end.device.profile.port(end.port).gid(back.globalRoute().sourceGidIndex());
            if (!back.globalRoute().destinationGid().equals(requester)
                    || !responder.equals(path.globalRoute().destinationGid())) {
                return null;
            }
        }
        return r;
    }

    private static boolean connects(QpType requester, QpType responder) {
        return switch (requester) {
            case RC -> responder == QpType.RC;
            case UC -> responder == QpType.UC;
            case XRC_SEND -> responder == QpType.XRC_RECV;
            case UD, XRC_RECV -> false;
        };
    }

    // ---- datagrams (UD) ----------------------------------------------------------------------------

    private Progress sendDatagram(KernelQp s, PostedSend wr) {
        SimAh ah = wr.ah();
        if (ah == null || ah.isDestroyed()) {
            return failSend(s, wr, WcStatus.LOC_QP_OP_ERR);
        }
        DeviceProfile.Port port = s.device.profile.port(s.port);
        if (wr.length() > port.activeMtu().bytes()) {
            return s.device.driver().dropsOversizedDatagrams() ? completeSend(s, wr, wr.length())
                    : failSend(s, wr, WcStatus.LOC_LEN_ERR);
        }
        byte[] payload = gather(s, wr);
        if (payload == null) {
            return failSend(s, wr, s.device.driver().localKeyFault());
        }
        if (!s.device.fatal && s.device.portActive(s.port)) {
            for (KernelQp r : datagramReceivers(s, ah.address, wr.remoteQpn(), port.linkLayer())) {
                deliverDatagram(s, wr, ah.address, payload, r);
            }
        }
        // Unreliable: the requester completes whether anyone received it.
        return completeSend(s, wr, payload.length);
    }

    private List<KernelQp> datagramReceivers(KernelQp s, AddressVector av, int remoteQpn, LinkLayer linkLayer) {
        List<KernelQp> receivers = new ArrayList<>();
        boolean global = av.globalRoute() != null;
        Gid destination = global ? av.globalRoute().destinationGid() : Gid.ZERO;
        boolean multicast = global ? destination.isMulticast()
                : av.destinationLid() >= 0xc000 && av.destinationLid() < 0xffff;
        if (!multicast) {
            Endpoint end = resolve(av, linkLayer);
            KernelQp r = end == null ? null : end.device.qps.get(remoteQpn);
            if (r != null && r.type == QpType.UD && r.port == end.port) {
                receivers.add(r);
            }
            return receivers;
        }
        for (SimDevice device : devices) {
            if (device == s.device && !s.device.driver().loopsBackMulticast()) {
                continue;
            }
            for (KernelQp r : groupMembers(device, global ? destination : null, av.destinationLid())) {
                if (device.profile.port(r.port).linkLayer() == linkLayer) {
                    receivers.add(r);
                }
            }
        }
        return receivers;
    }

    private static Set<KernelQp> groupMembers(SimDevice device, @Nullable Gid gid, int lid) {
        Set<KernelQp> members = new LinkedHashSet<>();
        for (KernelQp qp : device.qps.values()) {
            for (SimQp handle : qp.handles) {
                for (SimQp.Attachment a : handle.attachments) {
                    if (gid != null ? a.gid().equals(gid) : a.lid() == lid) {
                        members.add(qp);
                    }
                }
            }
        }
        return members;
    }

    private void deliverDatagram(KernelQp s, PostedSend wr, AddressVector av, byte[] payload, KernelQp r) {
        if (r.destroyed || !r.canReceive() || r.device.fatal || !r.device.portActive(r.port)) {
            return;
        }
        int qkey = (wr.remoteQkey() & QKEY_CONTROLLED) != 0 ? s.qkey : wr.remoteQkey();
        if (qkey != r.qkey) {
            return; // a Q_Key violation is silently dropped (and counted by the port)
        }
        PostedRecv rw = nextReceive(r, r.srq);
        if (rw == null) {
            return; // UD has no RNR: the datagram is lost
        }
        boolean grh = av.globalRoute() != null;
        byte[] header = grh ? grh(s, wr, av, payload.length) : null;
        WcStatus fault = scatter(r.device, r.pd, rw, true, header, payload);
        consumeReceive(r, r.srq);
        if (fault != null) {
            complete(r.receiveCompletionQueue(r.srq), Completion.failed(rw.wrId(), fault, r.qpNum), true, false);
            moveToError(r);
            return;
        }
        complete(r.receiveCompletionQueue(r.srq), receiveCompletion(s, r, rw, WcOpcode.RECV,
                payload.length + GRH_BYTES, wr.opcode().carriesImmediate(), wr, grh), true, wr.solicited());
    }

    /**
     * The 40 bytes a UD receive buffer starts with: for RoCE v2 the IPv6 header rxe hands up (next
     * header UDP, payload length counting UDP, BTH, DETH, immediate, padding and ICRC); for InfiniBand
     * the GRH (next header 0x1B).
     */
    private static byte[] grh(KernelQp s, PostedSend wr, AddressVector av, int length) {
        var route = av.globalRoute();
        boolean roce = s.device.profile.port(s.port).linkLayer() == LinkLayer.ETHERNET;
        int padded = (length + 3) & ~3;
        int transport = 12 + 8 + (wr.opcode().carriesImmediate() ? 4 : 0) + padded + 4;
        int payloadLength = roce ? 8 + transport : transport + 2;
        byte[] header = new byte[GRH_BYTES];
        int word = (6 << 28) | ((route.trafficClass() & 0xff) << 20) | (route.flowLabel() & 0xfffff);
        header[0] = (byte) (word >>> 24);
        header[1] = (byte) (word >>> 16);
        header[2] = (byte) (word >>> 8);
        header[3] = (byte) word;
        header[4] = (byte) (payloadLength >>> 8);
        header[5] = (byte) payloadLength;
        header[6] = (byte) (roce ? 0x11 : 0x1b);
        header[7] = (byte) s.device.driver().datagramHopLimit(route.hopLimit());
        Gid source = s.device.profile.port(s.port).gid(route.sourceGidIndex());
        System.arraycopy(source.toBytes(), 0, header, 8, 16);
        System.arraycopy(route.destinationGid().toBytes(), 0, header, 24, 16);
        return header;
    }

    // ---- addressing ------------------------------------------------------------------------------------

    /** The device port an address vector reaches: by destination GID, or by LID without a GRH. */
    private @Nullable Endpoint resolve(AddressVector av, LinkLayer linkLayer) {
        for (SimDevice device : devices) {
            List<DeviceProfile.Port> ports = device.profile.ports();
            for (int i = 0; i < ports.size(); i++) {
                DeviceProfile.Port port = ports.get(i);
                if (port.linkLayer() != linkLayer) {
                    continue;
                }
                boolean match = av.globalRoute() != null ? port.gids().contains(av.globalRoute().destinationGid())
                        : port.lid() != 0 && port.lid() == av.destinationLid();
                if (match) {
                    return new Endpoint(device, i + 1);
                }
            }
        }
        return null;
    }

    // ---- memory -------------------------------------------------------------------------------------------

    /** The bytes a send or write carries, or null when an SGE fails the local key check. */
    private static byte @Nullable [] gather(KernelQp s, PostedSend wr) {
        if (wr.inlineData() != null) {
            return wr.inlineData();
        }
        byte[] data = new byte[(int) wr.length()]; // bounded by max_msg_sz, checked in execute
        int offset = 0;
        for (int i = 0; i < wr.addresses().length; i++) {
            int length = wr.lengths()[i];
            if (length == 0) {
                continue;
            }
            SimMr mr = localRegion(s, wr.lkeys()[i], wr.addresses()[i], length, false);
            if (mr == null) {
                return null;
            }
            try {
                MemorySegment.copy(mr.slice(wr.addresses()[i], length), ValueLayout.JAVA_BYTE, 0, data, offset, length);
            } catch (IllegalStateException | WrongThreadException e) {
                return null; // the segment's arena was closed or is confined elsewhere: memory not reachable
            }
            offset += length;
        }
        return data;
    }

    private static boolean localDestinationValid(KernelQp s, PostedSend wr) {
        for (int i = 0; i < wr.addresses().length; i++) {
            if (wr.lengths()[i] != 0 && localRegion(s, wr.lkeys()[i], wr.addresses()[i], wr.lengths()[i], true) == null) {
                return false;
            }
        }
        return true;
    }

    /** Writes a READ or atomic result into the requester's SGEs. */
    private static boolean scatterLocal(KernelQp s, PostedSend wr, byte[] data) {
        int offset = 0;
        for (int i = 0; i < wr.addresses().length && offset < data.length; i++) {
            int length = Math.min(wr.lengths()[i], data.length - offset);
            if (length == 0) {
                continue;
            }
            SimMr mr = localRegion(s, wr.lkeys()[i], wr.addresses()[i], length, true);
            if (mr == null || !copyInto(mr, wr.addresses()[i], data, offset, length)) {
                return false;
            }
            offset += length;
        }
        return true;
    }

    private static @Nullable SimMr localRegion(KernelQp s, int lkey, long address, long length, boolean writes) {
        SimMr mr = s.device.mrs.get(lkey);
        if (mr == null || mr.isDestroyed() || mr.pd != s.pd || !mr.covers(address, length)
                || (writes && !mr.allows(AccessFlag.LOCAL_WRITE))) {
            return null;
        }
        return mr;
    }

    private static @Nullable SimMr remoteRegion(SimDevice device, int rkey, @Nullable SimPd pd, AccessFlag access,
            long address, long length) {
        SimMr mr = device.mrs.get(rkey);
        if (rkey == 0 || mr == null || mr.isDestroyed() || mr.rkey() != rkey || mr.pd != pd || !mr.allows(access)
                || !mr.covers(address, length)) {
            return null;
        }
        return mr;
    }

    /**
     * Writes a message across a receive WR's SGEs. A datagram's first 40 bytes are the GRH: written when
     * the packet had one ({@code header}), left untouched otherwise, as an InfiniBand UD receive without
     * GRH leaves them.
     *
     * @return null on success, else the responder's completion status
     */
    private static @Nullable WcStatus scatter(SimDevice device, @Nullable SimPd pd, PostedRecv rw, boolean datagram,
            byte @Nullable [] header, byte[] payload) {
        long prefix = datagram ? GRH_BYTES : 0;
        if (rw.capacity() < prefix + payload.length) {
            return device.driver().receiveTooShort();
        }
        for (int i = 0; i < rw.lkeys().length; i++) {
            if (rw.lengths()[i] == 0) {
                continue;
            }
            SimMr mr = device.mrs.get(rw.lkeys()[i]);
            if (mr == null || mr.isDestroyed() || mr.pd != pd || !mr.allows(AccessFlag.LOCAL_WRITE)
                    || !mr.covers(rw.addresses()[i], Integer.toUnsignedLong(rw.lengths()[i]))) {
                return device.driver().receiveBufferFault();
            }
        }
        byte[] message = new byte[(int) prefix + payload.length];
        if (header != null) {
            System.arraycopy(header, 0, message, 0, GRH_BYTES);
        }
        System.arraycopy(payload, 0, message, (int) prefix, payload.length);
        int skip = datagram && header == null ? GRH_BYTES : 0;
        int offset = 0;
        for (int i = 0; i < rw.lkeys().length && offset < message.length; i++) {
            long address = rw.addresses()[i];
            int length = (int) Math.min(Integer.toUnsignedLong(rw.lengths()[i]), message.length - offset);
            int untouched = Math.min(Math.max(skip - offset, 0), length);
            if (length > untouched
                    && !copyInto(device.mrs.get(rw.lkeys()[i]), address + untouched, message, offset + untouched,
                            length - untouched)) {
                return device.driver().receiveBufferFault();
            }
            offset += length;
        }
        return null;
    }

    private static boolean write(SimMr mr, long address, byte[] data) {
        return data.length == 0 || copyInto(mr, address, data, 0, data.length);
    }

    private static boolean copyInto(SimMr mr, long address, byte[] data, int offset, int length) {
        try {
            MemorySegment.copy(data, offset, mr.slice(address, length), ValueLayout.JAVA_BYTE, 0, length);
            return true;
        } catch (IllegalStateException | WrongThreadException e) {
            return false;
        }
    }

    private static byte @Nullable [] read(SimMr mr, long address, int length) {
        try {
            return mr.slice(address, length).toArray(ValueLayout.JAVA_BYTE);
        } catch (IllegalStateException | WrongThreadException e) {
            return null;
        }
    }

    // ---- receive queues and completions -----------------------------------------------------------------

    private static @Nullable PostedRecv nextReceive(KernelQp r, @Nullable SimSrq srq) {
        return srq != null ? srq.queue.peekFirst() : r.recvQueue.peekFirst();
    }

    private static void consumeReceive(KernelQp r, @Nullable SimSrq srq) {
        if (srq != null) {
            srq.queue.pollFirst();
        } else {
            r.recvQueue.pollFirst();
        }
    }

    private static Completion receiveCompletion(KernelQp s, KernelQp r, PostedRecv rw, WcOpcode opcode, int length,
            boolean immediate, PostedSend wr, boolean grh) {
        Driver driver = r.device.driver();
        boolean infiniband = r.device.profile.port(r.port).linkLayer() == LinkLayer.INFINIBAND;
        int sourceLid = infiniband ? s.device.profile.port(s.port).lid() : 0;
        return new Completion(rw.wrId(), WcStatus.SUCCESS, opcode, length, immediate ? wr.immediate() : 0, r.qpNum,
                driver.receiveSourceQp(r.type, s.qpNum), driver.receiveFlags(grh, immediate), sourceLid);
    }

    private Progress completeSend(KernelQp s, PostedSend wr, long length) {
        if (wr.signaled(s.signalAll)) {
            complete(s.sendCq, new Completion(wr.wrId(), WcStatus.SUCCESS, wr.opcode().completionOpcode(),
                    (int) length, 0, s.qpNum, 0, s.device.driver().sendFlags(wr.opcode()), 0), false, false);
        }
        return Progress.DONE;
    }

    private Progress failSend(KernelQp s, PostedSend wr, WcStatus status) {
        complete(s.sendCq, Completion.failed(wr.wrId(), status, s.qpNum), false, false);
        moveToError(s);
        return Progress.DONE;
    }

    /**
     * Adds a completion; a full CQ loses it and raises {@code IBV_EVENT_CQ_ERR} (observed on rxe: one
     * event per lost completion). An armed CQ fires once: one event queued on its channel.
     */
    void complete(@Nullable SimCq cq, Completion completion, boolean receiveSide, boolean solicitedBit) {
        if (cq == null || cq.isDestroyed() || cq.kernelGone) {
            return;
        }
        if (cq.entries.size() >= cq.capacity()) {
            SimContext context = cq.context();
            if (!context.isDestroyed()) {
                context.asyncEvents.add(new AsyncEventRecord(AsyncEventType.CQ_ERR, cq, 0));
            }
            return;
        }
        cq.entries.addLast(completion);
        boolean fire = switch (cq.arm) {
            case NONE -> false;
            case NEXT -> true;
            case SOLICITED -> cq.device.driver().firesSolicitedEvent(receiveSide, solicitedBit, completion.status());
        };
        if (fire) {
            cq.arm = SimCq.Arm.NONE;
            SimCompChannel channel = cq.channel;
            if (channel != null && !channel.isDestroyed()) {
                channel.events.addLast(cq);
                channel.eventArrived.signalAll();
            }
        }
    }
}
