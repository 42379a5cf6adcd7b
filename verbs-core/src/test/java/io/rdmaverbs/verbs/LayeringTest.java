package io.rdmaverbs.verbs;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The layers of verbs-core, from the bottom: {@code attr} and {@code error} (values and failures every
 * layer exchanges), the provider SPI ({@code provider}) with its two implementations ({@code ffm},
 * {@code simulated}), and the resource graph ({@code io.rdmaverbs.verbs} itself) on top. The graph reaches
 * a provider only through the SPI: whoever builds a {@link Verbs} picks the implementation and hands it
 * in ({@link Verbs#using}), so the graph has no factory for either and may name neither. The connection
 * API ({@code connection}) sits on the graph.
 *
 * <p>Each rule also fails when its subject matches no class (ArchUnit's default), so a renamed package
 * cannot leave a rule checking nothing.
 */
@AnalyzeClasses(packages = "io.rdmaverbs.verbs", importOptions = ImportOption.DoNotIncludeTests.class)
class LayeringTest {

    private static final String GRAPH = "io.rdmaverbs.verbs";
    private static final String ATTR = "io.rdmaverbs.verbs.attr";
    private static final String ERROR = "io.rdmaverbs.verbs.error";
    private static final String SPI = "io.rdmaverbs.verbs.provider..";
    private static final String FFM = "io.rdmaverbs.verbs.provider.ffm..";
    private static final String SIMULATED = "io.rdmaverbs.verbs.provider.simulated..";
    private static final String CONNECTION = "io.rdmaverbs.verbs.connection..";

    @ArchTest
    static final ArchRule providersNeverDependOnTheGraph = noClasses().that().resideInAPackage(SPI)
            .should().dependOnClassesThat().resideInAPackage(GRAPH)
            .because("a provider is a leaf: it reports failures with io.rdmaverbs.verbs.error and takes values "
                    + "from io.rdmaverbs.verbs.attr, and the graph sits on top of it");

    @ArchTest
    static final ArchRule valuesAndErrorsDependOnNeitherGraphNorProviders = noClasses()
            .that().resideInAnyPackage(ATTR, ERROR)
            .should().dependOnClassesThat().resideInAnyPackage(GRAPH, SPI)
            .because("attributes and errors are exchanged by every layer, so they sit below all of them");

    @ArchTest
    static final ArchRule errorsDependOnNoOtherPackageOfTheProject = noClasses().that().resideInAPackage(ERROR)
            .should().dependOnClassesThat().resideOutsideOfPackages(ERROR, "java..", "org.jspecify..")
            .because("a failure names the verb, the resource and the errno: nothing else of the project");

    @ArchTest
    static final ArchRule theNativeProviderDoesNotUseTheSimulatedOne = noClasses().that().resideInAPackage(FFM)
            .should().dependOnClassesThat().resideInAPackage(SIMULATED)
            .because("the two providers are alternatives behind the same SPI");

    @ArchTest
    static final ArchRule theSimulatedProviderDoesNotUseTheNativeOne = noClasses().that().resideInAPackage(SIMULATED)
            .should().dependOnClassesThat().resideInAPackage(FFM)
            .because("the simulator must run where libibverbs cannot be loaded");

    @ArchTest
    static final ArchRule theGraphReachesProvidersOnlyThroughTheSpi = noClasses().that().resideInAPackage(GRAPH)
            .should().dependOnClassesThat().resideInAnyPackage(FFM, SIMULATED)
            .because("the provider is chosen by whoever calls Verbs.using (the Spring starter, a test), not by "
                    + "the graph");

    @ArchTest
    static final ArchRule theGraphNeverDependsOnTheConnectionApi = noClasses().that().resideInAPackage(GRAPH)
            .should().dependOnClassesThat().resideInAPackage(CONNECTION)
            .because("connections are built on the graph's public CM resources, never the other way round");

    @ArchTest
    static final ArchRule connectionsUseNoProviderImplementation = noClasses().that().resideInAPackage(CONNECTION)
            .should().dependOnClassesThat().resideInAnyPackage(FFM, SIMULATED)
            .because("a connection runs on whichever provider the graph was given, through the graph alone");

    @ArchTest
    static final ArchRule nothingInVerbsCoreDependsOnSpring = noClasses()
            .should().dependOnClassesThat().resideInAPackage("org.springframework..")
            .because("verbs-core is a plain library; the Spring wiring lives in the autoconfigure module");
}
