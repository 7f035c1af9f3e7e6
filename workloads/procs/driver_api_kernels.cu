/*
 * driver_api_kernels.cu - the module driver_api.c loads with cuModuleLoad
 * (built to driver_api_kernels.cubin beside the binary by build-zoo.sh).
 */
extern "C" __global__ void add_one(float *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] += 1.0f;
}

extern "C" __global__ void scale_add(float *x, float a, float b, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = x[i] * a + b;
}
