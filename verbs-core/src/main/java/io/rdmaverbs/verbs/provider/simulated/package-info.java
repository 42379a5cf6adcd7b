/**
 * A pure-Java model of the kernel's {@code ib_uverbs}/{@code ib_core} and of libibverbs behind the
 * same {@link io.rdmaverbs.verbs.provider.VerbsProvider} interface as the FFM provider: the embedded
 * default on machines without RDMA hardware, and the reference a soft-RoCE run is compared with.
 *
 * <p>{@link io.rdmaverbs.verbs.provider.simulated.SimulatedProvider} owns one or more devices, each
 * described by a {@link io.rdmaverbs.verbs.provider.simulated.DeviceProfile}. The devices share one
 * simulated fabric: connected QPs exchange real bytes between registered native memory, completions
 * and events arrive where the kernel would put them, and every verb fails with the errno kernel 6.1 and
 * rdma-core 44 answer. Where drivers answer differently the profile's
 * {@link io.rdmaverbs.verbs.provider.simulated.Driver} decides, in one place.
 *
 * <p>The provider itself holds only the simulation hooks: each verb group's interface is implemented by
 * a class of its own ({@code SimDeviceVerbs}, {@code SimDomains}, {@code SimCompletionVerbs},
 * {@code SimSrqVerbs}, {@code SimQpVerbs} with {@code SimQpStateVerbs} and {@code SimPostVerbs} behind
 * it, {@code SimMrVerbs}, {@code SimAhVerbs}, {@code SimAsyncEvents}), and all of them go through
 * {@code SimUverbs}, the one place that checks handles and takes the device's or the fabric's lock, as
 * the kernel's {@code ib_uverbs} layer does. The kernel-side objects behind the handles are
 * {@code KernelQp} and {@code KernelXrcd}, counted by {@link
 * io.rdmaverbs.verbs.provider.simulated.KernelObjectKind}.
 */
@NullMarked
package io.rdmaverbs.verbs.provider.simulated;

import org.jspecify.annotations.NullMarked;
