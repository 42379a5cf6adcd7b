package io.rdmaverbs.spring.boot.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import io.rdmaverbs.spring.boot.resources.Declarations;
import io.rdmaverbs.spring.boot.resources.Declarations.Device;
import io.rdmaverbs.spring.boot.teardown.TeardownPolicy;

import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.context.properties.bind.Name;
import org.springframework.validation.annotation.Validated;

/**
 * Configuration of the RDMA verbs resources the application context manages. Every resource declared
 * under {@code rdma.verbs.devices} becomes a bean named by its key; keys must be unique across the
 * whole tree. References between resources are by key, within one device. A device's entry is a
 * {@link Declarations.Device}: the declarations belong to the resources package that creates them.
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
        return Declarations.devicePath(key);
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
