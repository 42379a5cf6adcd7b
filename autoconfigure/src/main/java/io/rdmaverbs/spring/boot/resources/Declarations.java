package io.rdmaverbs.spring.boot.resources;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.QpType;

import jakarta.validation.Valid;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.PositiveOrZero;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * The resources an application declares under {@code rdma.verbs.devices}, one entry per device: what
 * {@link CheckedDeclarations} checks and {@link DeclaredResourceFactory} creates. They are bound as the
 * entries of the {@code rdma.verbs} properties tree, and live here, with the types that consume them, so
 * that this package does not depend on the auto-configuration.
 */
public final class Declarations {

    /** The property path every device is declared under. */
    public static final String DEVICES = "rdma.verbs.devices";

    private Declarations() {
    }

    /** The property path of the device declared under {@code key}. */
    public static String devicePath(String key) {
        return DEVICES + "." + key;
    }

    /**
     * One device to open, and the resources to create on it. The device is selected by its kernel
     * name or by its node GUID; with neither, the key is taken as the device name.
     *
     * @param name Kernel device name, e.g. rxe0 or mlx5_0.
     * @param guid Node GUID, as ibv_devices prints it (hex digits, colons allowed).
     * @param port Port whose state the health indicator reports, 1-based.
     * @param protectionDomains Protection domains to allocate, by bean name.
     * @param xrcDomains XRC domains to open, by bean name.
     * @param completionChannels Completion channels to create, by bean name.
     * @param completionQueues Completion queues to create, by bean name.
     * @param sharedReceiveQueues Shared receive queues to create, by bean name.
     * @param queuePairs Queue pairs to create, by bean name.
     * @param memoryRegions Memory regions to allocate and register, by bean name.
     */
    public record Device(
            @Nullable String name,
            @Nullable String guid,
            @DefaultValue("1") @Min(1) int port,
            List<String> protectionDomains,
            Map<String, @Valid Xrcd> xrcDomains,
            List<String> completionChannels,
            Map<String, @Valid Cq> completionQueues,
            Map<String, @Valid Srq> sharedReceiveQueues,
            Map<String, @Valid Qp> queuePairs,
            Map<String, @Valid Mr> memoryRegions) {

        public Device {
            protectionDomains = protectionDomains == null ? List.of() : protectionDomains;
            xrcDomains = xrcDomains == null ? Map.of() : xrcDomains;
            completionChannels = completionChannels == null ? List.of() : completionChannels;
            completionQueues = completionQueues == null ? Map.of() : completionQueues;
            sharedReceiveQueues = sharedReceiveQueues == null ? Map.of() : sharedReceiveQueues;
            queuePairs = queuePairs == null ? Map.of() : queuePairs;
            memoryRegions = memoryRegions == null ? Map.of() : memoryRegions;
        }

        /** A device selected by name, with nothing declared on it. */
        public static Device named(String name) {
            return new Device(name, null, 1, null, null, null, null, null, null, null);
        }
    }

    /**
     * An XRC domain (ibv_open_xrcd).
     *
     * @param file File whose inode names a domain shared between processes; a domain private to the
     *     context when not set.
     * @param create O_CREAT: create the domain when none exists for the file yet.
     * @param exclusive O_EXCL: fail when a domain already exists for the file.
     */
    public record Xrcd(@Nullable Path file, @DefaultValue("true") boolean create,
            @DefaultValue("false") boolean exclusive) {
    }

    /**
     * A completion queue (ibv_create_cq).
     *
     * @param entries Minimum number of completions it holds, at most the device's max_cqe.
     * @param channel Completion channel (by name) its events go to; none when not set.
     * @param compVector Completion vector, below the device's num_comp_vectors.
     */
    public record Cq(@DefaultValue("256") @Positive int entries, @Nullable String channel,
            @DefaultValue("0") @PositiveOrZero int compVector) {
    }

    /**
     * A shared receive queue (ibv_create_srq, or ibv_create_srq_ex for an XRC SRQ).
     *
     * @param protectionDomain Protection domain (by name) it is created in.
     * @param maxWr Maximum number of outstanding receive work requests, at most max_srq_wr.
     * @param maxSge Maximum number of scatter/gather entries per work request, at most max_srq_sge.
     * @param limit SRQ limit that raises SRQ_LIMIT_REACHED, 0 (off) up to max-wr.
     * @param xrcDomain XRC domain (by name) of an XRC SRQ; a basic SRQ when not set.
     * @param completionQueue Completion queue (by name) of an XRC SRQ.
     */
    public record Srq(@Nullable String protectionDomain, @DefaultValue("256") @Positive int maxWr,
            @DefaultValue("1") @Positive int maxSge, @DefaultValue("0") @PositiveOrZero int limit,
            @Nullable String xrcDomain, @Nullable String completionQueue) {
    }

    /**
     * A queue pair (ibv_create_qp_ex).
     *
     * @param type Transport: rc, uc, ud, xrc-send or xrc-recv.
     * @param protectionDomain Protection domain (by name); not used by xrc-recv.
     * @param sendCq Completion queue (by name) of the send queue; not used by xrc-recv.
     * @param recvCq Completion queue (by name) of the receive queue; rc, uc and ud only.
     * @param srq Basic shared receive queue (by name) to receive through instead of a receive queue.
     * @param xrcDomain XRC domain (by name) of an xrc-recv queue pair.
     * @param maxSendWr Maximum number of outstanding send work requests, at most max_qp_wr.
     * @param maxRecvWr Maximum number of outstanding receive work requests, at most max_qp_wr.
     * @param maxSendSge Maximum number of scatter/gather entries per send, at most max_sge.
     * @param maxRecvSge Maximum number of scatter/gather entries per receive, at most max_sge.
     * @param maxInlineData Largest message sent inline, in bytes.
     * @param signalAll Whether every send completes with a work completion (sq_sig_all).
     */
    public record Qp(@DefaultValue("rc") @NotNull QpType type, @Nullable String protectionDomain,
            @Nullable String sendCq, @Nullable String recvCq, @Nullable String srq, @Nullable String xrcDomain,
            @DefaultValue("64") @PositiveOrZero int maxSendWr, @DefaultValue("64") @PositiveOrZero int maxRecvWr,
            @DefaultValue("1") @PositiveOrZero int maxSendSge, @DefaultValue("1") @PositiveOrZero int maxRecvSge,
            @DefaultValue("0") @PositiveOrZero int maxInlineData, @DefaultValue("true") boolean signalAll) {
    }

    /**
     * A memory region: page-aligned native memory, allocated and registered (ibv_reg_mr), freed when the
     * region is deregistered.
     *
     * @param protectionDomain Protection domain (by name) it is registered in.
     * @param size How much memory to allocate and register.
     * @param access Access the region grants: local-write, remote-write, remote-read, remote-atomic...
     */
    public record Mr(@Nullable String protectionDomain, @NotNull DataSize size,
            @DefaultValue("local-write") @NotEmpty Set<AccessFlag> access) {
    }
}
