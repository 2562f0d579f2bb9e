/* The Vulkan renderer: any Vulkan device (lavapipe in the guest). It draws
 * offscreen into an optimal-tiling image with a render pass whose clears
 * are the scene's rectangles (vkCmdClearAttachments: no shaders needed) and
 * copies the image into the client buffer in one of two ways:
 *
 *  - zero copy, when the device has VK_EXT_external_memory_host and can
 *    export a binary semaphore as a sync_file: the buffer's CPU mapping is
 *    imported as VkDeviceMemory, vkCmdCopyImageToBuffer writes the pixels
 *    straight into it, and the submit signals a semaphore exported as a
 *    sync_file, which the client turns into its acquire point. draw()
 *    returns without waiting for the GPU.
 *  - otherwise: copy into a host-visible staging buffer, vkWaitForFences,
 *    then the CPU copies the rows; the client signals the acquire point.
 *
 * The dmabuf itself is not imported (VK_EXT_external_memory_dma_buf): a
 * virtio-gpu dumb buffer is not memory lavapipe can render into; its CPU
 * mapping is. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#include "renderer.h"

#define MAX_CLEAR_RECTS 4096

struct vulkan_renderer {
	struct sw_renderer base;
	int width, height;
	VkInstance instance;
	VkPhysicalDevice physical;
	VkDevice device;
	VkQueue queue;
	uint32_t queue_family;
	VkImage image;
	VkDeviceMemory image_memory;
	VkImageView view;
	VkRenderPass render_pass;
	VkFramebuffer framebuffer;
	VkBuffer staging;
	VkDeviceMemory staging_memory;
	void *staging_map;
	VkCommandPool pool;
	VkCommandBuffer cmd;
	VkFence fence;
	VkClearRect *clear_rects;

	/* zero copy: host-pointer imports of the client buffers */
	bool zero_copy;
	bool pending; /* a submit whose fence was not waited for yet */
	VkSemaphore done;
	PFN_vkGetSemaphoreFdKHR get_semaphore_fd;
	PFN_vkGetMemoryHostPointerPropertiesEXT get_host_pointer_props;
	VkDeviceSize host_alignment;
	struct host_import {
		void *data;
		VkDeviceMemory memory;
		VkBuffer buffer;
	} imports[8];
	int n_imports;
};

static const struct sw_renderer_impl vulkan_impl;

static int find_memory(struct vulkan_renderer *r, uint32_t type_bits, VkMemoryPropertyFlags want)
{
	VkPhysicalDeviceMemoryProperties props;
	vkGetPhysicalDeviceMemoryProperties(r->physical, &props);
	for (uint32_t i = 0; i < props.memoryTypeCount; i++)
		if ((type_bits & (1u << i)) && (props.memoryTypes[i].propertyFlags & want) == want)
			return (int)i;
	return -1;
}

static VkClearValue clear_colour(uint32_t rgb)
{
	/* B8G8R8A8_UNORM matches XRGB8888 in memory (little endian). */
	VkClearValue v = { .color.float32 = {
		((rgb >> 16) & 0xff) / 255.0f, ((rgb >> 8) & 0xff) / 255.0f, (rgb & 0xff) / 255.0f, 1.0f } };
	return v;
}

/* The client buffer's mapping as a VkBuffer (imported once per buffer). */
static VkBuffer host_buffer(struct vulkan_renderer *r, struct sw_buffer *b)
{
	for (int i = 0; i < r->n_imports; i++)
		if (r->imports[i].data == b->data)
			return r->imports[i].buffer;
	if (r->n_imports == (int)(sizeof(r->imports) / sizeof(r->imports[0])))
		return VK_NULL_HANDLE;
	/* mmap gave whole pages: rounding the size up stays inside them. */
	VkDeviceSize size = (b->size + r->host_alignment - 1) / r->host_alignment * r->host_alignment;
	VkMemoryHostPointerPropertiesEXT hp = { .sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT };
	if (r->get_host_pointer_props(r->device, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
				      b->data, &hp) != VK_SUCCESS)
		return VK_NULL_HANDLE;
	VkExternalMemoryBufferCreateInfo ext = {
		.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
		.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
	};
	VkBufferCreateInfo bci = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.pNext = &ext,
		.size = size,
		.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	};
	struct host_import *imp = &r->imports[r->n_imports];
	if (vkCreateBuffer(r->device, &bci, NULL, &imp->buffer) != VK_SUCCESS)
		return VK_NULL_HANDLE;
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(r->device, imp->buffer, &req);
	int type = find_memory(r, req.memoryTypeBits & hp.memoryTypeBits, 0);
	VkImportMemoryHostPointerInfoEXT import = {
		.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT,
		.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
		.pHostPointer = b->data,
	};
	VkMemoryAllocateInfo mai = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.pNext = &import,
		.allocationSize = size,
		.memoryTypeIndex = (uint32_t)type,
	};
	if (type < 0 || vkAllocateMemory(r->device, &mai, NULL, &imp->memory) != VK_SUCCESS ||
	    vkBindBufferMemory(r->device, imp->buffer, imp->memory, 0) != VK_SUCCESS) {
		if (imp->memory)
			vkFreeMemory(r->device, imp->memory, NULL);
		vkDestroyBuffer(r->device, imp->buffer, NULL);
		*imp = (struct host_import){ 0 };
		return VK_NULL_HANDLE;
	}
	imp->data = b->data;
	r->n_imports++;
	return imp->buffer;
}

static bool vulkan_draw(struct sw_renderer *base, const struct sw_scene *s, struct sw_buffer *b,
			int *sync_file_fd)
{
	struct vulkan_renderer *r = (struct vulkan_renderer *)base;
	*sync_file_fd = -1;
	if (b->width != r->width || b->height != r->height)
		return false;
	VkBuffer target = r->zero_copy ? host_buffer(r, b) : VK_NULL_HANDLE;
	if (r->zero_copy && !target) {
		fprintf(stderr, "syncway-gears: cannot import the buffer mapping into Vulkan; copying with the CPU\n");
		r->zero_copy = false;
	}
	/* The command buffer and the image are reused: the previous frame
	 * must be done with them (it usually is by now). */
	if (r->pending)
		vkWaitForFences(r->device, 1, &r->fence, VK_TRUE, UINT64_MAX);
	r->pending = false;
	vkResetFences(r->device, 1, &r->fence);
	vkResetCommandBuffer(r->cmd, 0);
	VkCommandBufferBeginInfo begin = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
		.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	};
	vkBeginCommandBuffer(r->cmd, &begin);
	VkClearValue bg = clear_colour(s->background);
	VkRenderPassBeginInfo rp = {
		.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
		.renderPass = r->render_pass,
		.framebuffer = r->framebuffer,
		.renderArea = { { 0, 0 }, { r->width, r->height } },
		.clearValueCount = 1,
		.pClearValues = &bg,
	};
	vkCmdBeginRenderPass(r->cmd, &rp, VK_SUBPASS_CONTENTS_INLINE);
	size_t i = 0;
	while (i < s->n) {
		uint32_t n = 0, rgb = s->rects[i].rgb;
		for (; i < s->n && s->rects[i].rgb == rgb && n < MAX_CLEAR_RECTS; i++, n++) {
			const struct sw_rect *q = &s->rects[i];
			r->clear_rects[n] = (VkClearRect){
				.rect = { { q->x, q->y }, { (uint32_t)q->w, (uint32_t)q->h } },
				.baseArrayLayer = 0,
				.layerCount = 1,
			};
		}
		VkClearAttachment att = {
			.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT,
			.colorAttachment = 0,
			.clearValue = clear_colour(rgb),
		};
		vkCmdClearAttachments(r->cmd, 1, &att, n, r->clear_rects);
	}
	vkCmdEndRenderPass(r->cmd);
	/* The render pass leaves the image in TRANSFER_SRC_OPTIMAL. */
	VkBufferImageCopy copy = {
		.bufferRowLength = target ? b->stride / 4 : 0,
		.imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
		.imageExtent = { r->width, r->height, 1 },
	};
	vkCmdCopyImageToBuffer(r->cmd, r->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
			       target ? target : r->staging, 1, &copy);
	VkBufferMemoryBarrier to_host = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
		.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_HOST_READ_BIT,
		.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
		.buffer = target ? target : r->staging,
		.size = VK_WHOLE_SIZE,
	};
	vkCmdPipelineBarrier(r->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0,
			     NULL, 1, &to_host, 0, NULL);
	vkEndCommandBuffer(r->cmd);
	VkSubmitInfo submit = {
		.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
		.commandBufferCount = 1,
		.pCommandBuffers = &r->cmd,
		.signalSemaphoreCount = target ? 1 : 0,
		.pSignalSemaphores = &r->done,
	};
	if (vkQueueSubmit(r->queue, 1, &submit, r->fence) != VK_SUCCESS)
		return false;
	if (target) {
		r->pending = true;
		VkSemaphoreGetFdInfoKHR gfi = {
			.sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR,
			.semaphore = r->done,
			.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT,
		};
		/* Exporting a sync_file unsignals the semaphore again (copy
		 * transference), so it is ready for the next submit. fd -1
		 * means "already signalled". */
		if (r->get_semaphore_fd(r->device, &gfi, sync_file_fd) != VK_SUCCESS) {
			/* The semaphore stays signalled: no more zero copy. */
			fprintf(stderr, "syncway-gears: vkGetSemaphoreFdKHR failed; copying with the CPU from now on\n");
			*sync_file_fd = -1;
			vkWaitForFences(r->device, 1, &r->fence, VK_TRUE, UINT64_MAX);
			r->pending = false;
			r->zero_copy = false;
		}
		return true;
	}
	if (vkWaitForFences(r->device, 1, &r->fence, VK_TRUE, UINT64_MAX) != VK_SUCCESS)
		return false;
	/* Host-coherent memory was asked for, so no invalidate is needed. */
	size_t row = (size_t)r->width * 4;
	for (int y = 0; y < r->height; y++)
		memcpy((char *)b->data + (size_t)y * b->stride, (char *)r->staging_map + y * row, row);
	return true;
}

static void vulkan_destroy(struct sw_renderer *base)
{
	struct vulkan_renderer *r = (struct vulkan_renderer *)base;
	if (r->device) {
		vkDeviceWaitIdle(r->device);
		for (int i = 0; i < r->n_imports; i++) {
			vkDestroyBuffer(r->device, r->imports[i].buffer, NULL);
			vkFreeMemory(r->device, r->imports[i].memory, NULL);
		}
		if (r->done)
			vkDestroySemaphore(r->device, r->done, NULL);
		if (r->fence)
			vkDestroyFence(r->device, r->fence, NULL);
		if (r->pool)
			vkDestroyCommandPool(r->device, r->pool, NULL);
		if (r->staging_map)
			vkUnmapMemory(r->device, r->staging_memory);
		if (r->staging)
			vkDestroyBuffer(r->device, r->staging, NULL);
		if (r->staging_memory)
			vkFreeMemory(r->device, r->staging_memory, NULL);
		if (r->framebuffer)
			vkDestroyFramebuffer(r->device, r->framebuffer, NULL);
		if (r->render_pass)
			vkDestroyRenderPass(r->device, r->render_pass, NULL);
		if (r->view)
			vkDestroyImageView(r->device, r->view, NULL);
		if (r->image)
			vkDestroyImage(r->device, r->image, NULL);
		if (r->image_memory)
			vkFreeMemory(r->device, r->image_memory, NULL);
		vkDestroyDevice(r->device, NULL);
	}
	if (r->instance)
		vkDestroyInstance(r->instance, NULL);
	free(r->clear_rects);
	free(r);
}

static const struct sw_renderer_impl vulkan_impl = {
	.name = "vulkan",
	.draw = vulkan_draw,
	.destroy = vulkan_destroy,
};

#define CHECK(call, what)                                                        \
	do {                                                                     \
		VkResult res_ = (call);                                          \
		if (res_ != VK_SUCCESS) {                                        \
			snprintf(err, err_len, "%s failed (VkResult %d)", what, res_); \
			goto fail;                                               \
		}                                                                \
	} while (0)

struct sw_renderer *sw_renderer_vulkan_create(int width, int height, char *err, size_t err_len)
{
	struct vulkan_renderer *r = calloc(1, sizeof(*r));
	r->base.impl = &vulkan_impl;
	r->width = width;
	r->height = height;
	r->clear_rects = calloc(MAX_CLEAR_RECTS, sizeof(*r->clear_rects));

	VkApplicationInfo app = {
		.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
		.pApplicationName = "syncway-gears",
		.apiVersion = VK_API_VERSION_1_1,
	};
	VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app };
	CHECK(vkCreateInstance(&ici, NULL, &r->instance), "vkCreateInstance");

	uint32_t n = 0;
	vkEnumeratePhysicalDevices(r->instance, &n, NULL);
	if (n == 0) {
		snprintf(err, err_len, "no Vulkan device");
		goto fail;
	}
	VkPhysicalDevice devs[16];
	if (n > 16)
		n = 16;
	vkEnumeratePhysicalDevices(r->instance, &n, devs);
	/* Any device with a graphics queue; the first one wins. */
	for (uint32_t i = 0; i < n && !r->physical; i++) {
		uint32_t nq = 0;
		vkGetPhysicalDeviceQueueFamilyProperties(devs[i], &nq, NULL);
		VkQueueFamilyProperties qp[16];
		if (nq > 16)
			nq = 16;
		vkGetPhysicalDeviceQueueFamilyProperties(devs[i], &nq, qp);
		for (uint32_t q = 0; q < nq; q++) {
			if (qp[q].queueFlags & VK_QUEUE_GRAPHICS_BIT) {
				r->physical = devs[i];
				r->queue_family = q;
				break;
			}
		}
	}
	if (!r->physical) {
		snprintf(err, err_len, "no Vulkan device with a graphics queue");
		goto fail;
	}
	VkPhysicalDeviceProperties props;
	vkGetPhysicalDeviceProperties(r->physical, &props);

	float prio = 1.0f;
	VkDeviceQueueCreateInfo qci = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
		.queueFamilyIndex = r->queue_family,
		.queueCount = 1,
		.pQueuePriorities = &prio,
	};
	/* Zero copy needs host-pointer imports and sync_file semaphores. */
	bool has_host = false, has_sem_fd = false;
	uint32_t next = 0;
	vkEnumerateDeviceExtensionProperties(r->physical, NULL, &next, NULL);
	VkExtensionProperties *exts = calloc(next ? next : 1, sizeof(*exts));
	vkEnumerateDeviceExtensionProperties(r->physical, NULL, &next, exts);
	for (uint32_t i = 0; i < next; i++) {
		has_host |= strcmp(exts[i].extensionName, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME) == 0;
		has_sem_fd |= strcmp(exts[i].extensionName, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME) == 0;
	}
	free(exts);
	VkPhysicalDeviceExternalSemaphoreInfo esi = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO,
		.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT,
	};
	VkExternalSemaphoreProperties esp = { .sType = VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES };
	if (has_sem_fd)
		vkGetPhysicalDeviceExternalSemaphoreProperties(r->physical, &esi, &esp);
	r->zero_copy = has_host && has_sem_fd &&
		       (esp.externalSemaphoreFeatures & VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT) &&
		       !getenv("SYNCWAY_VULKAN_NO_ZERO_COPY");
	const char *dev_exts[] = { VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME,
				   VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME };
	VkDeviceCreateInfo dci = {
		.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.queueCreateInfoCount = 1,
		.pQueueCreateInfos = &qci,
		.enabledExtensionCount = r->zero_copy ? 2 : 0,
		.ppEnabledExtensionNames = dev_exts,
	};
	CHECK(vkCreateDevice(r->physical, &dci, NULL, &r->device), "vkCreateDevice");
	vkGetDeviceQueue(r->device, r->queue_family, 0, &r->queue);

	VkImageCreateInfo imci = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
		.imageType = VK_IMAGE_TYPE_2D,
		.format = VK_FORMAT_B8G8R8A8_UNORM,
		.extent = { width, height, 1 },
		.mipLevels = 1,
		.arrayLayers = 1,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.tiling = VK_IMAGE_TILING_OPTIMAL,
		.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
		.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
	};
	CHECK(vkCreateImage(r->device, &imci, NULL, &r->image), "vkCreateImage");
	VkMemoryRequirements req;
	vkGetImageMemoryRequirements(r->device, r->image, &req);
	int type = find_memory(r, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
	if (type < 0)
		type = find_memory(r, req.memoryTypeBits, 0);
	VkMemoryAllocateInfo mai = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.allocationSize = req.size,
		.memoryTypeIndex = (uint32_t)type,
	};
	CHECK(vkAllocateMemory(r->device, &mai, NULL, &r->image_memory), "vkAllocateMemory (image)");
	CHECK(vkBindImageMemory(r->device, r->image, r->image_memory, 0), "vkBindImageMemory");
	VkImageViewCreateInfo vci = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
		.image = r->image,
		.viewType = VK_IMAGE_VIEW_TYPE_2D,
		.format = VK_FORMAT_B8G8R8A8_UNORM,
		.subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
	};
	CHECK(vkCreateImageView(r->device, &vci, NULL, &r->view), "vkCreateImageView");

	VkAttachmentDescription att = {
		.format = VK_FORMAT_B8G8R8A8_UNORM,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
		.storeOp = VK_ATTACHMENT_STORE_OP_STORE,
		.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
		.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
		.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
		.finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
	};
	VkAttachmentReference ref = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
	VkSubpassDescription sub = {
		.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
		.colorAttachmentCount = 1,
		.pColorAttachments = &ref,
	};
	/* The copy after the pass reads what the clears wrote. */
	VkSubpassDependency dep = {
		.srcSubpass = 0,
		.dstSubpass = VK_SUBPASS_EXTERNAL,
		.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
		.dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT,
		.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
		.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT,
	};
	VkRenderPassCreateInfo rpci = {
		.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
		.attachmentCount = 1,
		.pAttachments = &att,
		.subpassCount = 1,
		.pSubpasses = &sub,
		.dependencyCount = 1,
		.pDependencies = &dep,
	};
	CHECK(vkCreateRenderPass(r->device, &rpci, NULL, &r->render_pass), "vkCreateRenderPass");
	VkFramebufferCreateInfo fci = {
		.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
		.renderPass = r->render_pass,
		.attachmentCount = 1,
		.pAttachments = &r->view,
		.width = width,
		.height = height,
		.layers = 1,
	};
	CHECK(vkCreateFramebuffer(r->device, &fci, NULL, &r->framebuffer), "vkCreateFramebuffer");

	VkBufferCreateInfo bci = {
		.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
		.size = (VkDeviceSize)width * height * 4,
		.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
	};
	CHECK(vkCreateBuffer(r->device, &bci, NULL, &r->staging), "vkCreateBuffer");
	vkGetBufferMemoryRequirements(r->device, r->staging, &req);
	type = find_memory(r, req.memoryTypeBits,
			   VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
	if (type < 0) {
		snprintf(err, err_len, "no host-visible coherent memory");
		goto fail;
	}
	mai.allocationSize = req.size;
	mai.memoryTypeIndex = (uint32_t)type;
	CHECK(vkAllocateMemory(r->device, &mai, NULL, &r->staging_memory), "vkAllocateMemory (staging)");
	CHECK(vkBindBufferMemory(r->device, r->staging, r->staging_memory, 0), "vkBindBufferMemory");
	CHECK(vkMapMemory(r->device, r->staging_memory, 0, VK_WHOLE_SIZE, 0, &r->staging_map), "vkMapMemory");

	VkCommandPoolCreateInfo pci = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
		.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
		.queueFamilyIndex = r->queue_family,
	};
	CHECK(vkCreateCommandPool(r->device, &pci, NULL, &r->pool), "vkCreateCommandPool");
	VkCommandBufferAllocateInfo cai = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
		.commandPool = r->pool,
		.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
		.commandBufferCount = 1,
	};
	CHECK(vkAllocateCommandBuffers(r->device, &cai, &r->cmd), "vkAllocateCommandBuffers");
	VkFenceCreateInfo fnci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	CHECK(vkCreateFence(r->device, &fnci, NULL, &r->fence), "vkCreateFence");
	if (r->zero_copy) {
		VkPhysicalDeviceExternalMemoryHostPropertiesEXT hp = {
			.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT,
		};
		VkPhysicalDeviceProperties2 p2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &hp };
		vkGetPhysicalDeviceProperties2(r->physical, &p2);
		r->host_alignment = hp.minImportedHostPointerAlignment ? hp.minImportedHostPointerAlignment : 4096;
		r->get_semaphore_fd = (PFN_vkGetSemaphoreFdKHR)vkGetDeviceProcAddr(r->device, "vkGetSemaphoreFdKHR");
		r->get_host_pointer_props = (PFN_vkGetMemoryHostPointerPropertiesEXT)
			vkGetDeviceProcAddr(r->device, "vkGetMemoryHostPointerPropertiesEXT");
		VkExportSemaphoreCreateInfo esci = {
			.sType = VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO,
			.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_SYNC_FD_BIT,
		};
		VkSemaphoreCreateInfo sci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &esci };
		if (!r->get_semaphore_fd || !r->get_host_pointer_props ||
		    vkCreateSemaphore(r->device, &sci, NULL, &r->done) != VK_SUCCESS)
			r->zero_copy = false;
	}
	snprintf(r->base.description, sizeof(r->base.description), "Vulkan %.80s, %s", props.deviceName,
		 r->zero_copy ? "zero copy, sync_file acquire" : "staging copy, CPU acquire");
	return &r->base;
fail:
	vulkan_destroy(&r->base);
	return NULL;
}
