package io.rdmaverbs.spring.boot.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.rdmaverbs.spring.boot.teardown.TeardownPolicy;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.QpType;

import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.PositiveOrZero;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.context.properties.bind.Name;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * Configuration of the RDMA verbs resources the application context manages. Every resource declared
 * under {@code rdma.verbs.devices} becomes a bean named by its key; keys must be unique across the
 * whole tree. References between resources are by key, within one device.
 *
 * @param provider Which verbs provider to use: the real libibverbs, or the pure-Java simulation.
 * @param nativeProvider Settings of the native (libibverbs) provider.
 * @param simulated Settings of the simulated provider.
 * @param devices Devices to open, by bean name of their device context.
 * @param teardown How the resources are released when the application context closes.
 * @param asyncEvents Reading of the devices' asynchronous events.
 * @param circuitBreaker Circuit breaker guarding each device.
 * @param leakDetectionThreshold How long a lease may be held, or a completion event left unacknowledged,
 *     before it is logged as a suspected leak with the stack that took it and the device's health turns
 *     LEAK_SUSPECTED. Off when not set.
 */
@ConfigurationProperties(VerbsProperties.PREFIX)
@Validated
public record VerbsProperties(
        @DefaultValue("native") Provider provider,
        @Name("native") @DefaultValue Native nativeProvider,
        @DefaultValue @Valid Simulated simulated,
        Map<String, @Valid Device> devices,
        @DefaultValue @Valid Teardown teardown,
        @DefaultValue AsyncEvents asyncEvents,
        @DefaultValue @Valid CircuitBreaker circuitBreaker,
        @Nullable Duration leakDetectionThreshold) {

    /** The prefix of every property. */
    public static final String PREFIX = "rdma.verbs";

    public VerbsProperties {
        devices = devices == null ? Map.of() : devices;
    }

    /** The property path of the device declared under {@code key}. */
    public static String devicePath(String key) {
        return PREFIX + ".devices." + key;
    }

    /** Where verbs come from. */
    public enum Provider {
        /** libibverbs through java.lang.foreign: real RDMA devices (hardware or soft-RoCE). */
        NATIVE,
        /** A pure-Java model of the kernel and libibverbs: no hardware, no native code. */
        SIMULATED
    }

    /**
     * Settings of the native provider.
     *
     * @param libraryPath Path of the libibverbs.so.1 to load instead of the one the dynamic linker finds.
     */
    public record Native(@Nullable Path libraryPath) {
    }

    /**
     * Settings of the simulated provider.
     *
     * @param devices Simulated devices, by device name; one rxe device named rxe0 when none is given.
     */
    public record Simulated(Map<String, @Valid SimulatedDevice> devices) {

        public Simulated {
            devices = devices == null || devices.isEmpty() ? Map.of("rxe0", new SimulatedDevice(SimulatedProfile.RXE))
                    : devices;
        }
    }

    /**
     * One simulated device.
     *
     * @param profile Driver and limits the simulated device reproduces.
     */
    public record SimulatedDevice(@DefaultValue("rxe") @NotNull SimulatedProfile profile) {
    }

    /** The device models the simulated provider offers. */
    public enum SimulatedProfile {
        /** Soft-RoCE (rdma_rxe) as kernel 6.1 reports it: RoCE v2, no XRC, 2 completion vectors. */
        RXE,
        /** A ConnectX-5 class HCA (mlx5_ib) on RoCE (Ethernet link layer, GID addressing), with XRC. */
        MLX5,
        /** The same HCA on an InfiniBand fabric: LID addressing, no GRH on UD unless asked for. */
        MLX5_INFINIBAND
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

    /**
     * The release of every resource when the application context closes.
     *
     * @param policy What to do with resources that are still held once the graceful phase is over:
     *     strict leaves them open and reports them, cascade releases them children first.
     * @param timeout How long the graceful phase waits for leases to be released and references to drain.
     * @param retry Backoff of the graceful phase between close attempts.
     */
    public record Teardown(@DefaultValue("strict") @NotNull TeardownPolicy policy,
            @DefaultValue("10s") @NotNull Duration timeout, @DefaultValue @Valid Retry retry) {
    }

    /**
     * The Resilience4j retry of the teardown's graceful phase: a close refused (EBUSY) because something
     * still holds a resource is tried again, with exponential backoff, until the timeout.
     *
     * @param maxAttempts Maximum number of close attempts.
     * @param initialBackoff Wait after the first refused attempt.
     * @param multiplier Factor each further wait grows by.
     * @param maxBackoff Longest wait between two attempts.
     */
    public record Retry(@DefaultValue("50") @Min(1) int maxAttempts,
            @DefaultValue("50ms") @NotNull Duration initialBackoff,
            @DefaultValue("2.0") @DecimalMin("1.0") double multiplier,
            @DefaultValue("1s") @NotNull Duration maxBackoff) {
    }

    /**
     * Reading of asynchronous events (ibv_get_async_event): one thread per device context, each event
     * published as a VerbsAsyncEvent application event.
     *
     * @param enabled Whether to read async events.
     * @param refuseTrafficOnDeviceFatal Whether a DEVICE_FATAL event publishes the readiness state
     *     REFUSING_TRAFFIC, so that a load balancer stops sending requests until the application restarts.
     */
    public record AsyncEvents(@DefaultValue("true") boolean enabled,
            @DefaultValue("false") boolean refuseTrafficOnDeviceFatal) {
    }

    /**
     * The Resilience4j circuit breaker of each device context: forced open by a DEVICE_FATAL event, opened
     * by a PORT_ERR event and closed again by PORT_ACTIVE; calls decorated with it also count towards its
     * failure rate.
     *
     * @param failureRateThreshold Failure rate, in percent, that opens the breaker.
     * @param slidingWindowSize Number of calls the failure rate is computed over.
     * @param minimumNumberOfCalls Number of calls needed before the failure rate counts.
     * @param waitDurationInOpenState How long an opened (not forced) breaker waits before it lets trial calls through.
     * @param permittedCallsInHalfOpenState Number of trial calls in the half-open state.
     */
    public record CircuitBreaker(@DefaultValue("50") @DecimalMin("1") @DecimalMax("100") float failureRateThreshold,
            @DefaultValue("20") @Min(1) int slidingWindowSize, @DefaultValue("10") @Min(1) int minimumNumberOfCalls,
            @DefaultValue("30s") @NotNull Duration waitDurationInOpenState,
            @DefaultValue("3") @Min(1) @Max(1000) int permittedCallsInHalfOpenState) {
    }
}
