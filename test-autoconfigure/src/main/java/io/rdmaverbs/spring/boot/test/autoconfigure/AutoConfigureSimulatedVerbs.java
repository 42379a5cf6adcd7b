package io.rdmaverbs.spring.boot.test.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.core.annotation.AliasFor;

/**
 * Brings the RDMA verbs resource graph into a test slice ({@code @WebMvcTest}, {@code @JsonTest},
 * {@code @DataJpaTest}, ...) and runs it on the simulated provider. A slice switches full
 * auto-configuration off, so without this annotation it has no verbs beans at all; with it, the
 * provider, the {@code Verbs} graph, every resource declared under {@code rdma.verbs.devices}, the
 * async-event readers, the device circuit breakers and the listeners and peers declared under
 * {@code rdma.verbs.connections} (which connect in the test's JVM when a peer's address is a listener's)
 * with their messaging (the {@code RdmaTemplate}, the {@code @RdmaEndpoint} beans the slice has, and
 * JSON when the slice brings Jackson) are there, as in the application; {@link SimulatedConnections}
 * declares such a listener and peer without YAML.
 *
 * <pre>{@code
 * @WebMvcTest(ReplicationController.class)
 * @AutoConfigureSimulatedVerbs                      // one soft-RoCE device, rxe0
 * class ReplicationControllerTests { ... }
 * }</pre>
 *
 * The auto-configurations imported are listed in
 * {@code META-INF/spring/io.rdmaverbs.spring.boot.test.autoconfigure.AutoConfigureSimulatedVerbs.imports}.
 * The verbs health, the {@code verbs} endpoint and metrics are not among them: they are actuator
 * integrations, which slices leave out as well (the connections' health contributor comes with the
 * connections, and their meters need a {@code MeterRegistry}, which a slice does not have). On a {@code @SpringBootTest}, which auto-configures everything
 * already, {@link SimulatedVerbs} alone is enough.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
@SimulatedVerbs
public @interface AutoConfigureSimulatedVerbs {

    /** The simulated devices; one rxe device named rxe0 by default. */
    @AliasFor(annotation = SimulatedVerbs.class)
    SimulatedVerbs.Device[] value() default @SimulatedVerbs.Device(name = "rxe0");
}
