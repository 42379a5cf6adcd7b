package io.rdmaverbs.spring.boot.test.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import io.rdmaverbs.spring.boot.autoconfigure.VerbsProperties.SimulatedProfile;

/**
 * Runs a {@code @SpringBootTest} (or any Spring test context) on the simulated verbs provider, with no
 * RDMA hardware and no native code: sets {@code rdma.verbs.provider=simulated} and declares the
 * simulated devices, over whatever the application's own configuration says.
 *
 * <pre>{@code
 * @SpringBootTest
 * @SimulatedVerbs                                   // one soft-RoCE device, rxe0
 * class OrderServiceTests { ... }
 *
 * @SpringBootTest
 * @SimulatedVerbs({ @SimulatedVerbs.Device(name = "mlx5_0", profile = SimulatedProfile.MLX5),
 *                   @SimulatedVerbs.Device(name = "rxe0") })
 * class XrcTests { ... }
 * }</pre>
 *
 * Inject {@code VerbsProvider} and cast it to {@code SimulatedProvider} to drive the devices (take a
 * port down, inject a fatal error) from the test. {@link InjectFault} makes verbs fail, planned before
 * the context starts; the provider's {@code FaultPlan} is a bean for faults planned in the test.
 * <p>
 * It sets properties only: the test context must auto-configure rdma-verbs already, as a
 * {@code @SpringBootTest} does. A test slice such as {@code @WebMvcTest} does not; use
 * {@link AutoConfigureSimulatedVerbs} there, which carries this annotation and imports the
 * auto-configuration too.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface SimulatedVerbs {

    /** The simulated devices; one rxe device named rxe0 by default. */
    Device[] value() default @Device(name = "rxe0");

    /** One simulated device. */
    @Target({})
    @Retention(RetentionPolicy.RUNTIME)
    @interface Device {

        /** The kernel name the device has, e.g. rxe0 or mlx5_0. */
        String name();

        /** The driver and limits it reproduces. */
        SimulatedProfile profile() default SimulatedProfile.RXE;
    }
}
