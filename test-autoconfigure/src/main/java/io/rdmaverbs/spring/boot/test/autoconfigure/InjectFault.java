package io.rdmaverbs.spring.boot.test.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a verb of the simulated provider fail, planned before the test's context starts: a fault at a
 * create the startup makes ({@code ibv_create_cq} of a declared completion queue) fails the startup,
 * a fault at a later call fails the test's own use of the verb. Goes with {@link SimulatedVerbs} (or
 * {@link AutoConfigureSimulatedVerbs}); repeatable, and each planned fault is one call of
 * {@code SimulatedProvider.faults()} ({@code FaultPlan}).
 *
 * <pre>{@code
 * @SpringBootTest
 * @SimulatedVerbs
 * @InjectFault(verb = "ibv_reg_mr", nth = 1, errno = "ENOMEM")   // the first ibv_reg_mr fails, once
 * class BufferPoolTests { ... }
 * }</pre>
 *
 * Test classes with different faults get different cached contexts. For run-time faults planned inside
 * a test, inject the {@code FaultPlan} bean; to assert on a failed startup, start the context yourself
 * with {@link SimulatedFaults} as an initializer.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@Repeatable(InjectFaults.class)
public @interface InjectFault {

    /** The libibverbs name of the verb, as the simulated provider counts it: {@code ibv_create_cq}. */
    String verb();

    /** Which call of the verb fails, counted from 1 over the whole context (startup included). */
    int nth() default 1;

    /** The errno it fails with, by name: {@code ENOMEM}, {@code EINVAL}, {@code EIO}... */
    String errno() default "ENOMEM";

    /** Whether every later call of the verb fails too ({@code FaultPlan.failCallsFrom}), not that one only. */
    boolean andLater() default false;
}
